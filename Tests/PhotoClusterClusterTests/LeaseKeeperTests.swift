import Foundation
import PhotoClusterCore
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

@testable import PhotoClusterCoordinator

/// A leading coordinator node on a real PostgreSQL server holds two connections, its journal's
/// and its lease keeper's, and a clean stop releases the lease on the keeper's own connection: it
/// needs no new one (the database here accepts none by then).
final class LeaseKeeperTests: XCTestCase {
    private var server: ThrowawayPostgres!
    private var uri: String!
    private var context: ZMQContext?
    private var coordinator: CoordinatorNode?

    override func setUpWithError() throws {
        guard ThrowawayPostgres.isInstalled else { throw XCTSkip(ThrowawayPostgres.missing) }
        server = try ThrowawayPostgres.shared()
        uri = try server.freshDatabase("keeper")
    }

    override func tearDown() {
        coordinator?.stop()
        context?.terminate()
        try? server?.psql(server.uri, "ALTER DATABASE \(databaseName) ALLOW_CONNECTIONS true")
    }

    private var databaseName: String { String(uri.split(separator: "/").last ?? "") }

    func testALeaderHoldsTwoConnectionsAndReleasesItsLeaseOnItsKeepersOwn() throws {
        // The test's own connection: it made the tables, as a standby does, and took the lease.
        let connection = try PostgresDatabase(uri: uri)
        try PostgresSchema.create(on: connection)
        let leases = LeaseStore(database: connection)
        let requestSent = MonotonicInstant.now
        let lease = try XCTUnwrap(try leases.acquire(holder: "leader", endpoint: "inproc://keeper-clients", ttl: 3))
        let context = try ZMQContext()
        self.context = context
        var configuration = CoordinatorConfiguration(workerEndpoint: "inproc://keeper-workers", clientEndpoint: "inproc://keeper-clients")
        configuration.leadership = LeadershipTerm(database: uri, holder: "leader", lease: lease, leaseSeconds: 3, requestSent: requestSent)
        let coordinator = CoordinatorNode(configuration: configuration, context: context)
        self.coordinator = coordinator
        try coordinator.start()

        // The keeper opens its connection with its first renew, a third of the lease in.
        XCTAssertTrue(
            eventually(timeout: 10) { ((try? leases.current())?.expiresAt ?? .distantPast) > lease.expiresAt }, "the keeper renewed no lease")
        let others = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        XCTAssertEqual(try connection.unfencedQuery(others).first?[0].int, 2, "a leader holds two connections: the journal's and the keeper's")

        try server.psql(server.uri, "ALTER DATABASE \(databaseName) ALLOW_CONNECTIONS false")
        coordinator.stop()
        self.coordinator = nil
        XCTAssertNil(try leases.current(), "the stop did not release the lease on the keeper's connection")
        XCTAssertEqual(try connection.unfencedQuery("SELECT token FROM leadership").first?[0].int, lease.token)
    }
}
