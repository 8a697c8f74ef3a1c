import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling

/// The journal on a real PostgreSQL server (`scripts/throwaway-postgres`) keeps what it keeps in
/// SQLite, field for field; its connection decodes each column type, survives a server that
/// dropped it, and never shows a password.
final class PostgresJournalTests: XCTestCase {
    private var server: ThrowawayPostgres!
    private var uri: String!
    private var out: URL!

    override func setUpWithError() throws {
        guard ThrowawayPostgres.isInstalled else { throw XCTSkip(ThrowawayPostgres.missing) }
        server = try ThrowawayPostgres.shared()
        uri = try server.freshDatabase("journal")
        out = Repository.temporaryDirectory("postgres-journal-out")
    }

    override func tearDown() {
        if let out { try? FileManager.default.removeItem(at: out) }
    }

    /// Every field the journal keeps comes back from PostgreSQL as it does from SQLite: jobs with
    /// their submits, viewport, epoch, suspension, owner and counts; photos with outcome, size,
    /// output and settled order; losses; the finish order; and a forgotten job is gone whole.
    func testEveryFieldRoundTripsAsInSQLite() throws {
        let state = Repository.temporaryDirectory("postgres-journal-sqlite")
        defer { try? FileManager.default.removeItem(at: state) }
        let fromSQLite = try roundTrip { try Journal(directory: state) }
        let fromPostgres = try roundTrip { try Journal(postgres: PostgresDatabase(uri: self.uri)) }
        XCTAssertEqual(fromPostgres, fromSQLite, "PostgreSQL kept something else than SQLite")
    }

    /// Writes three jobs through one journal, reads them back through another, checks them and
    /// returns what was read (to compare the two databases).
    private func roundTrip(_ open: () throws -> Journal) throws -> [String] {
        let journal = try open()
        let submit = try ClusterHarness.submit(
            [("a", "http://127.0.0.1:9/a.jpg"), ("b", "http://127.0.0.1:9/b.jpg"), ("c", "http://127.0.0.1:9/c.jpg")], out: out)
        let created = Date(timeIntervalSince1970: 1_700_000_000.25)
        let job = Job(id: "job-a", submit: submit, outputDirectory: out, owner: "client-key", now: created)
        try journal.recordJob(job, submit: submit)
        job.requeues = 2
        job.retries = 3
        job.epoch = 7
        job.suspendedByClient = true
        job.viewport = Viewport(visible: 1...2, prefetch: 4)
        job.markDone(0, format: .png, width: 640, height: 480)
        try Data("png".utf8).write(to: URL(fileURLWithPath: job.outputPath(of: job.photos[0])))
        job.markFailed(1, stage: "download", reason: "HTTP 500")
        // As the coordinator writes them: one batch a turn of its loop (pipelined on PostgreSQL).
        try journal.database.beginBatch()
        try journal.recordPhotos([job.photos[0], job.photos[1]], of: job)
        // A photo recorded again replaces its row.
        job.markFailed(1, stage: "decode", reason: "not a JPEG: it's \"text\"")
        try journal.recordPhotos([job.photos[1]], of: job)
        try journal.recordWorkerLosses(WorkerLosses(count: 2, workers: ["w1", "w2"]), photo: 2, of: job.id)
        try journal.recordWorkerLosses(WorkerLosses(count: 1, workers: ["w3"]), photo: 1, of: job.id)
        try journal.recordWorkerLosses(nil, photo: 1, of: job.id)
        try journal.database.commitBatch()

        for id in ["job-b", "job-c"] {
            let other = Job(id: id, submit: submit, outputDirectory: out, now: created)
            try journal.recordJob(other, submit: submit)
            for index in 0..<3 { other.markCancelled(UInt32(index), reason: "cancelled by the client") }
            try journal.recordPhotos(other.photos, of: other)
            try journal.recordWorkerLosses(WorkerLosses(count: 1, workers: ["w9"]), photo: 0, of: id)
            other.enter(.didFinish, at: created)
            try journal.recordJobFinished(other)
        }
        XCTAssertEqual(try journal.idsInFinishOrder(), ["job-a", "job-b", "job-c"], "open jobs first, then in the order they finished")
        try journal.forgetJob("job-b")
        for table in ["jobs WHERE id", "submits WHERE job_id", "photos WHERE job_id", "worker_losses WHERE job_id"] {
            XCTAssertEqual(try journal.database.query("SELECT COUNT(*) FROM \(table) = ?", [.text("job-b")]).first?.first, .int(0), "\(table) kept the forgotten job")
        }

        let reopened = try open()
        XCTAssertEqual(try reopened.idsInFinishOrder(), ["job-a", "job-c"])
        let jobs = try reopened.loadJobs()
        XCTAssertEqual(jobs.map(\.id), ["job-a", "job-c"])
        let restored = try XCTUnwrap(jobs.first)
        XCTAssertEqual(restored.createdAt, created)
        XCTAssertEqual(restored.owner, "client-key")
        XCTAssertEqual(restored.total, 3)
        XCTAssertEqual([restored.requeues, restored.retries], [2, 3])
        XCTAssertEqual(restored.epoch, 8, "one past the journal's: the stopped coordinator may have sent the next epoch without journaling it")
        XCTAssertTrue(restored.suspendedByClient)
        XCTAssertEqual(restored.viewport.visible, 1...2)
        XCTAssertEqual(restored.viewport.prefetch, 4)
        XCTAssertEqual(restored.phase, .inProgress)
        XCTAssertEqual(restored.photos[0].state, .done)
        XCTAssertEqual(restored.photos[0].outputFormat, .png)
        XCTAssertEqual([restored.photos[0].width, restored.photos[0].height], [640, 480])
        XCTAssertEqual(restored.outputPath(of: restored.photos[0]), job.outputPath(of: job.photos[0]))
        XCTAssertEqual(restored.photos[1].state, .failed)
        XCTAssertEqual(restored.photos[1].failedStage, "decode")
        XCTAssertEqual(restored.photos[1].reason, "not a JPEG: it's \"text\"")
        XCTAssertEqual(restored.settledSequence(of: 1), job.settledSequence(of: 1))
        XCTAssertNotEqual(restored.photos[2].state, .done, "an unsettled photo waits to run again")
        XCTAssertEqual(restored.workerLosses, [2: WorkerLosses(count: 2, workers: ["w1", "w2"])])
        XCTAssertEqual(jobs.last?.phase, .didFinish)
        XCTAssertEqual(jobs.last?.photos.map(\.reason), Array(repeating: "cancelled by the client", count: 3))
        return jobs.flatMap { job in
            ["\(job.id) \(job.phase) \(job.owner ?? "-") \(job.epoch) \(job.viewport.visible) \(job.createdAt.timeIntervalSince1970)"]
                + job.photos.map { "\($0.state) \($0.attempts) \($0.failedStage) \($0.reason) \($0.width)x\($0.height) \(job.settledSequence(of: $0.index))" }
        }
    }

    /// Each column type comes back as what it holds, and a `?` inside a quoted string is text,
    /// not a placeholder.
    func testValuesComeBackByColumnType() throws {
        let database = try PostgresDatabase(uri: uri)
        try database.execute(
            "CREATE TABLE kinds (small SMALLINT, medium INTEGER, large BIGINT, real DOUBLE PRECISION, words TEXT, short VARCHAR(20), bytes BYTEA, flag BOOLEAN, note TEXT)")
        let bytes = Data([0, 1, 0xFF, 0x80])
        try database.execute(
            "INSERT INTO kinds VALUES (CAST(? AS SMALLINT), CAST(? AS INTEGER), ?, ?, ?, CAST(? AS VARCHAR(20)), ?, ? <> 0, 'what?')",
            [.int(-7), .int(-70_000), .int(Int64.min), .double(-0.125), .text("naïve ✓"), .text("short"), .blob(bytes), .int(1)])
        try database.execute("INSERT INTO kinds VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [.null, .null, .null, .null, .text(""), .null, .blob(Data()), .null, .null])
        let rows = try database.query("SELECT * FROM kinds ORDER BY large NULLS LAST")
        XCTAssertEqual(rows.first, [.int(-7), .int(-70_000), .int(Int64.min), .double(-0.125), .text("naïve ✓"), .text("short"), .blob(bytes), .int(1), .text("what?")])
        XCTAssertEqual(rows.last, [.null, .null, .null, .null, .text(""), .null, .blob(Data()), .null, .null])
        XCTAssertThrowsError(try database.query("SELECT now()")) { error in
            XCTAssertTrue("\(error)".contains("does not read"), "\(error)")
        }
    }

    /// The accept commits with `synchronous_commit = on` (the client is told only once it is on
    /// the server's disk); photo outcomes commit with `off` (a lost one only runs its photo again).
    func testTheAcceptCommitsDurablyAndPhotoOutcomesDoNot() throws {
        let database = try PostgresDatabase(uri: uri)
        let journal = try Journal(postgres: database)
        var levels: [String] = []
        database.willCommit = { levels.append((try? $0.query("SHOW synchronous_commit").first?.first?.text) ?? "?") }
        let submit = try ClusterHarness.submit([("a", "http://127.0.0.1:9/a.jpg")], out: out)
        let job = Job(id: "job-durable", submit: submit, outputDirectory: out, now: Date())
        try journal.recordJob(job, submit: submit)
        XCTAssertEqual(levels, ["on"], "the accepted job was committed without waiting for the server's disk")
        levels = []
        job.markFailed(0, stage: "download", reason: "HTTP 404")
        try database.beginBatch()
        try journal.recordPhotos([job.photos[0]], of: job)
        try database.commitBatch()
        XCTAssertEqual(levels, ["off"], "a batch of photo outcomes waited for the server's disk")
    }

    /// A connection the server dropped (as a restart does) fails the write that finds it (a
    /// batch's writes are pipelined: its commit), with an error that says so, and is opened again
    /// for the next one.
    func testADroppedConnectionFailsThatWriteAndTheNextSucceeds() throws {
        let database = try PostgresDatabase(uri: uri)
        try database.execute("CREATE TABLE t (n BIGINT)")
        try database.execute("INSERT INTO t VALUES (?)", [.int(1)])
        try server.psql(uri, "SELECT pg_terminate_backend(\(try XCTUnwrap(database.query("SELECT pg_backend_pid()").first?.first?.int)))")
        XCTAssertThrowsError(try database.execute("INSERT INTO t VALUES (?)", [.int(2)])) { error in
            XCTAssertTrue("\(error)".contains("connection to the database was lost"), "\(error)")
        }
        try database.beginBatch()
        try database.execute("INSERT INTO t VALUES (?)", [.int(3)])
        try server.psql(uri, "SELECT pg_terminate_backend(\(try XCTUnwrap(database.query("SELECT pg_backend_pid()").first?.first?.int)))")
        try database.execute("INSERT INTO t VALUES (?)", [.int(4)])
        XCTAssertThrowsError(try database.commitBatch()) { error in
            XCTAssertTrue("\(error)".contains("connection to the database was lost"), "\(error)")
        }
        XCTAssertFalse(database.batchIsOpen, "the batch died with its connection")
        try database.beginBatch()
        try database.execute("INSERT INTO t VALUES (?)", [.int(5)])
        try database.commitBatch()
        XCTAssertEqual(try server.psql(uri, "SELECT n FROM t ORDER BY n"), ["1", "5"])
    }

    /// A batch's writes are pipelined a thousand answers at a time: a long batch commits whole,
    /// and one failure anywhere in it (here a duplicate key past the first thousand) fails its
    /// commit and leaves nothing of it.
    func testALongBatchCommitsWholeOrNotAtAll() throws {
        let database = try PostgresDatabase(uri: uri)
        try database.execute("CREATE TABLE t (n BIGINT PRIMARY KEY)")
        let count = PostgresDatabase.pipelineDepth * 5 / 2
        try database.beginBatch()
        for n in 0..<count { try database.execute("INSERT INTO t VALUES (?)", [.int(Int64(n))]) }
        try database.commitBatch()
        XCTAssertEqual(try server.psql(uri, "SELECT COUNT(*), SUM(n) FROM t"), ["\(count)|\(count * (count - 1) / 2)"])

        try database.beginBatch()
        XCTAssertThrowsError(try {
            for n in count..<(2 * count) { try database.execute("INSERT INTO t VALUES (?)", [.int(Int64(n == count + 1500 ? 0 : n))]) }
            try database.commitBatch()
        }()) { error in
            XCTAssertTrue("\(error)".contains("duplicate key"), "\(error)")
        }
        XCTAssertFalse(database.batchIsOpen)
        XCTAssertEqual(try server.psql(uri, "SELECT COUNT(*) FROM t"), ["\(count)"], "part of the failed batch was written")
        try database.execute("INSERT INTO t VALUES (?)", [.int(Int64(2 * count))])
        XCTAssertEqual(try server.psql(uri, "SELECT COUNT(*) FROM t"), ["\(count + 1)"], "the connection is usable after the failed batch")
    }

    /// Passwords stay out of logs and errors, in the user part and in a parameter.
    func testAPasswordNeverShows() {
        XCTAssertEqual(PostgresURI.redacted("postgres://jo:s3cret@db.example:5432/pc?sslmode=require"), "postgres://jo:***@db.example:5432/pc?sslmode=require")
        XCTAssertEqual(PostgresURI.redacted("postgresql://db/pc?user=jo&password=s3cret"), "postgresql://db/pc?user=jo&password=***")
        XCTAssertEqual(PostgresURI.redacted("postgresql://jo@db/pc"), "postgresql://jo@db/pc")
        XCTAssertTrue(PostgresURI.isDatabase("PostgreSQL://db/pc"))
        XCTAssertFalse(PostgresURI.isDatabase("/var/lib/photocluster"))
        XCTAssertThrowsError(try PostgresDatabase(uri: "postgresql://jo:s3cret@127.0.0.1:1/pc?connect_timeout=2")) { error in
            XCTAssertFalse("\(error)".contains("s3cret"), "\(error)")
            XCTAssertTrue("\(error)".contains("cannot connect") && "\(error)".contains("jo:***@127.0.0.1:1"), "\(error)")
        }
    }
}
