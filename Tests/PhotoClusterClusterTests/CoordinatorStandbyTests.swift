import Foundation
import PhotoClusterCore
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterCoordinator

/// A standby on a real PostgreSQL server makes the journal's tables once, on its first
/// connection, and takes the lease when nobody holds it; a database that lost the tables while
/// it waited gets them again.
final class CoordinatorStandbyTests: XCTestCase {
    private var server: ThrowawayPostgres!
    private var uri: String!
    private var standby: CoordinatorStandby?
    /// What the standby told: who leads (nil with the problem), and the term it won.
    private let seen = LockedBox<[(holder: String?, problem: String?)]>([])
    private let won = LockedBox<LeadershipTerm?>(nil)

    override func setUpWithError() throws {
        guard ThrowawayPostgres.isInstalled else { throw XCTSkip(ThrowawayPostgres.missing) }
        server = try ThrowawayPostgres.shared()
        uri = try server.freshDatabase("standby")
    }

    override func tearDown() {
        standby?.stop()
    }

    private func startStandby() {
        let standby = CoordinatorStandby(database: uri, holder: "standby", endpoint: "tcp://standby:7001", leaseSeconds: 1)
        self.standby = standby
        standby.start(
            onLeader: { [seen] lease, problem in seen.withLock { $0.append((lease?.holder, problem)) } },
            onLead: { [won] term in won.withLock { $0 = term } })
    }

    func testOnAnEmptyDatabaseItMakesTheTablesAndLeads() throws {
        startStandby()
        XCTAssertTrue(eventually { self.won.current != nil }, "no lead: \(seen.current)")
        XCTAssertEqual(won.current?.lease.token, 1)
        XCTAssertEqual(try server.psql(uri, "SELECT token, holder FROM leadership"), ["1|standby"])
    }

    func testTablesLostWhileItWaitsAreMadeAgain() throws {
        try PostgresSchema.create(on: PostgresDatabase(uri: uri))
        XCTAssertNotNil(try LeaseStore(uri: uri).acquire(holder: "other", endpoint: "tcp://other:7001", ttl: 60))
        startStandby()
        XCTAssertTrue(eventually { self.seen.current.contains { $0.holder == "other" } }, "the standby did not see the leader: \(seen.current)")

        try server.psql(uri, "DROP TABLE leadership")
        XCTAssertTrue(eventually { self.won.current != nil }, "no lead: \(seen.current)")
        XCTAssertTrue(seen.current.contains { $0.problem?.contains("does not exist") == true }, "it saw the table gone: \(seen.current)")
        XCTAssertEqual(won.current?.lease.token, 1, "the lease of a new table")
        XCTAssertEqual(try server.psql(uri, "SELECT token, holder FROM leadership"), ["1|standby"])
    }
}
