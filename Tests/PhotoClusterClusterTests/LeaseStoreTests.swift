import Foundation
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling

/// The leadership lease on a real PostgreSQL server: taken, renewed, lapsed and released on the
/// server's clock, one holder at a time; and a leader whose token is no longer current cannot
/// write one row of the journal.
final class LeaseStoreTests: XCTestCase {
    private var server: ThrowawayPostgres!
    private var uri: String!
    private var out: URL!

    override func setUpWithError() throws {
        guard ThrowawayPostgres.isInstalled else { throw XCTSkip(ThrowawayPostgres.missing) }
        server = try ThrowawayPostgres.shared()
        uri = try server.freshDatabase("lease")
        // As a standby does once per process, before its first acquire.
        try PostgresSchema.create(on: PostgresDatabase(uri: uri))
        out = Repository.temporaryDirectory("lease-out")
    }

    override func tearDown() {
        if let out { try? FileManager.default.removeItem(at: out) }
    }

    func testALeaseIsTakenRenewedAndReleasedOnTheServersClock() throws {
        let store = try LeaseStore(uri: uri)
        XCTAssertNil(try store.current(), "nobody holds a new database's lease")
        let lease = try XCTUnwrap(try store.acquire(holder: "a", endpoint: "tcp://a:7001", ttl: 30))
        XCTAssertEqual(lease.token, 1)
        XCTAssertEqual([lease.holder, lease.endpoint], ["a", "tcp://a:7001"])
        XCTAssertEqual(lease.expiresAt.timeIntervalSince(lease.since), 30, accuracy: 0.001, "the lease runs for its ttl from the server's now")
        let serverNow = try XCTUnwrap(Double(try server.psql(uri, "SELECT EXTRACT(EPOCH FROM now())").first ?? ""))
        XCTAssertEqual(lease.since.timeIntervalSince1970, serverNow, accuracy: 5)
        XCTAssertEqual(try store.current(), lease)

        let renewed = try XCTUnwrap(try store.renew(token: lease.token, ttl: 60))
        XCTAssertEqual(renewed.token, lease.token, "a renewal keeps the token")
        XCTAssertEqual(renewed.since, lease.since)
        XCTAssertGreaterThan(renewed.expiresAt, lease.expiresAt)
        XCTAssertNil(try store.renew(token: lease.token + 1, ttl: 60), "a token that never led renewed the lease")

        try store.release(token: lease.token)
        XCTAssertNil(try store.current(), "a released lease is still held")
        let next = try XCTUnwrap(try store.acquire(holder: "b", endpoint: "tcp://b:7001", ttl: 30), "a released lease cannot be taken at once")
        XCTAssertEqual(next.token, 2, "each new leader gets the next token")
        XCTAssertNil(try store.renew(token: lease.token, ttl: 30), "the old leader renewed a lease another holds")
    }

    func testASecondHolderCannotTakeALiveLeaseButTakesALapsedOne() throws {
        let first = try LeaseStore(uri: uri)
        let second = try LeaseStore(uri: uri)
        let lease = try XCTUnwrap(try first.acquire(holder: "a", endpoint: "tcp://a:7001", ttl: 0.5))
        XCTAssertNil(try second.acquire(holder: "b", endpoint: "tcp://b:7001", ttl: 30), "b took a live lease")
        XCTAssertNil(try first.acquire(holder: "a", endpoint: "tcp://a:7001", ttl: 30), "acquire is not a renewal")
        XCTAssertEqual(try second.current()?.holder, "a")
        XCTAssertTrue(eventually(timeout: 10) { (try? second.current()) == nil }, "the lease did not lapse on the server's clock")
        let taken = try XCTUnwrap(try second.acquire(holder: "b", endpoint: "tcp://b:7001", ttl: 30))
        XCTAssertEqual(taken.token, lease.token + 1)
        XCTAssertNil(try first.renew(token: lease.token, ttl: 30), "the lapsed leader got its lease back after b took it")
    }

    /// The point of the token: a leader paused past its lease wakes up after another took over,
    /// and every write it tries (a batch, a transaction, a lone statement) is refused whole.
    func testAWriterWithAnOldTokenIsFencedAndWritesNothing() throws {
        let leases = try LeaseStore(uri: uri)
        let old = try XCTUnwrap(try leases.acquire(holder: "old", endpoint: "tcp://old:7001", ttl: 0.3))
        let database = try PostgresDatabase(uri: uri)
        database.fencingToken = old.token
        let journal = try Journal(postgres: database)
        let submit = try ClusterHarness.submit([("a", "http://127.0.0.1:9/a.jpg")], out: out)
        let kept = Job(id: "job-before", submit: submit, outputDirectory: out, now: Date())
        try journal.recordJob(kept, submit: submit)

        XCTAssertTrue(eventually(timeout: 10) { (try? leases.current()) == nil })
        let new = try XCTUnwrap(try LeaseStore(uri: uri).acquire(holder: "new", endpoint: "tcp://new:7001", ttl: 30))

        let refused = Job(id: "job-after", submit: submit, outputDirectory: out, now: Date())
        func assertFenced(_ what: String, _ body: () throws -> Void) {
            XCTAssertThrowsError(try body(), what) { error in
                let fenced = error as? JournalFenced
                XCTAssertNotNil(fenced, "\(what): \(error)")
                XCTAssertEqual(fenced?.token, old.token)
                XCTAssertEqual(fenced?.currentToken, new.token)
                XCTAssertEqual(fenced?.currentHolder, "new")
                XCTAssertTrue("\(error)".contains("token \(new.token), held by new, leads now"), "\(error)")
            }
        }
        assertFenced("recording a job") { try journal.recordJob(refused, submit: submit) }
        assertFenced("a batch") {
            try database.beginBatch()
            try journal.recordPhotos([kept.photos[0]], of: kept)
        }
        XCTAssertFalse(database.batchIsOpen)
        assertFenced("a lone write") { try journal.recordWorkerLosses(WorkerLosses(count: 1, workers: ["w"]), photo: 0, of: kept.id) }
        assertFenced("forgetting a job") { try journal.forgetJob(kept.id) }

        // Read by another client: only what was written while the token was current.
        XCTAssertEqual(try server.psql(uri, "SELECT id FROM jobs ORDER BY id"), ["job-before"])
        XCTAssertEqual(try server.psql(uri, "SELECT job_id FROM submits"), ["job-before"])
        XCTAssertEqual(try server.psql(uri, "SELECT COUNT(*) FROM photos"), ["0"])
        XCTAssertEqual(try server.psql(uri, "SELECT COUNT(*) FROM worker_losses"), ["0"])

        database.fencingToken = new.token
        try journal.recordJob(refused, submit: submit)
        XCTAssertEqual(try server.psql(uri, "SELECT id FROM jobs ORDER BY id"), ["job-after", "job-before"], "the current token's writes go through")
    }

    /// A leader's renew goes through while its own batch is open (the fence's key share does not
    /// block a plain update of the expiry): a long turn of the loop must not cost it the lease.
    func testARenewIsNotHeldUpByTheLeadersOpenBatch() throws {
        let leases = try LeaseStore(uri: uri)
        let lease = try XCTUnwrap(try leases.acquire(holder: "leader", endpoint: "tcp://leader:7001", ttl: 30))
        let database = try PostgresDatabase(uri: uri)
        database.fencingToken = lease.token
        let journal = try Journal(postgres: database)
        let submit = try ClusterHarness.submit([("a", "http://127.0.0.1:9/a.jpg")], out: out)
        try database.beginBatch()
        try journal.recordJob(Job(id: "job-a", submit: submit, outputDirectory: out, now: Date()), submit: submit)
        try database.beginBatch()
        // A renew that had to wait for the batch would fail here instead of waiting.
        try leases.database.simple("SET lock_timeout = '1s'")
        XCTAssertEqual(try leases.renew(token: lease.token, ttl: 30)?.token, lease.token)
        try database.commitBatch()
    }

    /// A takeover waits for a leader's open batch (the fence holds the lease row FOR KEY SHARE), so
    /// the batch commits whole under the old token and the next one is refused: no write falls
    /// between the two.
    func testATakeoverWaitsForTheOpenBatchAndTheNextBatchIsFenced() throws {
        let leases = try LeaseStore(uri: uri)
        let old = try XCTUnwrap(try leases.acquire(holder: "old", endpoint: "tcp://old:7001", ttl: 0.3))
        let database = try PostgresDatabase(uri: uri)
        database.fencingToken = old.token
        let journal = try Journal(postgres: database)
        let submit = try ClusterHarness.submit([("a", "http://127.0.0.1:9/a.jpg")], out: out)
        let job = Job(id: "job-a", submit: submit, outputDirectory: out, now: Date())
        try journal.recordJob(job, submit: submit)
        XCTAssertTrue(eventually(timeout: 10) { (try? leases.current()) == nil })

        try database.beginBatch()
        job.markFailed(0, stage: "download", reason: "HTTP 404")
        try journal.recordPhotos([job.photos[0]], of: job)
        let taker = try LeaseStore(uri: uri)
        let taken = LockedBox<Lease?>(nil)
        let takeover = Thread { taken.set(try? taker.acquire(holder: "new", endpoint: "tcp://new:7001", ttl: 30)) }
        takeover.start()
        XCTAssertTrue(eventually(timeout: 10) {
            ((try? self.server.psql(self.uri, "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")) ?? []) == ["1"]
        }, "the takeover did not wait for the open batch")
        XCTAssertNil(taken.get())
        try database.commitBatch()
        XCTAssertTrue(eventually(timeout: 10) { taken.get() != nil })
        XCTAssertEqual(taken.get()?.token, old.token + 1)
        XCTAssertEqual(try server.psql(uri, "SELECT reason FROM photos"), ["HTTP 404"], "the batch begun under the current token was lost")
        XCTAssertThrowsError(try database.beginBatch()) { XCTAssertTrue($0 is JournalFenced, "\($0)") }
    }
}

/// A value two threads hand over.
private final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
