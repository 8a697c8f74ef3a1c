import Foundation
import PhotoClusterTestSupport
import XCTest

/// `cluster coordinator --state postgres://…` as a user meets it: a database state needs
/// `--output-root`, an unreachable server is a clear failure, and the password never shows.
final class PostgresStateOptionTests: XCTestCase {
    func testADatabaseStateNeedsAnOutputRootAndNeverShowsItsPassword() throws {
        let refused = try CommandRunner.run(["coordinator", "--insecure", "--state", "postgres://jo:s3cret@127.0.0.1:1/pc"])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("needs --output-root"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("postgres://jo:***@127.0.0.1:1/pc"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("s3cret"), refused.stderr)
    }

    func testAnUnreachableDatabaseIsAClearFailureWithoutThePassword() throws {
        let out = Repository.temporaryDirectory("postgres-state-out")
        defer { try? FileManager.default.removeItem(at: out) }
        let port = LoopbackPorts.consecutive(2)
        let failed = try CommandRunner.run([
            "coordinator", "--insecure", "--bind", "tcp://127.0.0.1:\(port)", "--client-bind", "tcp://127.0.0.1:\(port + 1)",
            "--http", "off", "--metrics-bind", "off", "--output-root", out.path,
            "--state", "postgresql://jo:s3cret@127.0.0.1:1/pc?connect_timeout=2",
        ])
        XCTAssertEqual(failed.status, 1, failed.stderr)
        XCTAssertTrue(failed.stderr.contains("cannot connect"), failed.stderr)
        XCTAssertTrue(failed.stderr.contains("PGPASSWORD"), "the error says where the password goes: \(failed.stderr)")
        XCTAssertFalse(failed.stderr.contains("s3cret"), failed.stderr)
    }
}
