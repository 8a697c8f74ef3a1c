import Foundation
import PhotoClusterTestSupport
import XCTest

/// `--coordinator` takes a comma-separated list in every command that has it; a malformed list
/// is refused before anything connects, naming the item at fault, and the insecure-endpoint
/// check of `cluster worker` covers every item.
final class CoordinatorListOptionTests: XCTestCase {
    func testAnEmptyItemIsRefusedByEveryCommandNamingIt() throws {
        for arguments in [
            ["worker", "--insecure", "--coordinator", "tcp://127.0.0.1:7000,,tcp://127.0.0.1:7002"],
            ["status", "--coordinator", "tcp://127.0.0.1:7001,,tcp://127.0.0.1:7003"],
            ["submit", "photos.txt", "--coordinator", "tcp://127.0.0.1:7001,,tcp://127.0.0.1:7003"],
        ] {
            let result = try CommandRunner.run(arguments, timeout: 20)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("--coordinator: item 2 of"), "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("is empty"), "\(arguments): \(result.stderr)")
        }
        let trailing = try CommandRunner.run(["cancel", "job-1", "--coordinator", "tcp://127.0.0.1:7001,"], timeout: 20)
        XCTAssertEqual(trailing.status, 2, trailing.stderr)
        XCTAssertTrue(trailing.stderr.contains("item 2 of \"tcp://127.0.0.1:7001,\" is empty"), trailing.stderr)
        let twice = try CommandRunner.run(["watch", "job-1", "--coordinator", "tcp://127.0.0.1:7001,tcp://127.0.0.1:7001"], timeout: 20)
        XCTAssertEqual(twice.status, 2, twice.stderr)
        XCTAssertTrue(twice.stderr.contains("is named twice"), twice.stderr)
    }

    func testAWorkerWithoutKeysIsRefusedForANetworkEndpointAnywhereInTheList() throws {
        let result = try CommandRunner.run(["worker", "--coordinator", "ipc:///tmp/photocluster-standby,tcp://127.0.0.1:7000"], timeout: 20)
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("connecting over tcp://127.0.0.1:7000 without CURVE keys"), result.stderr)
    }

    func testTheHelpSaysWhatTheListIsFor() throws {
        for command in ["worker", "submit", "status"] {
            let help = try CommandRunner.run([command, "--help"], timeout: 20)
            let text = help.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
            XCTAssertTrue(text.contains("leading coordinator and its standbys"), "\(command): \(help.stdout)")
            XCTAssertTrue(text.contains("Kubernetes"), "\(command): \(help.stdout)")
        }
    }
}
