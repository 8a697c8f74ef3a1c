import Foundation
import PhotoClusterTestSupport
import XCTest

/// A submit waiting on a coordinator that died (and is not coming back) does not wait for ever:
/// after --give-up-after seconds without a word it stops, says the job may go on there and how
/// to follow it again, and exits 1.
final class DeadCoordinatorTests: XCTestCase {
    func testASubmitGivesUpOnACoordinatorThatDied() throws {
        let work = Repository.temporaryDirectory("dead-coordinator")
        defer { try? FileManager.default.removeItem(at: work) }
        let base = LoopbackPorts.consecutive(2)
        let clientEndpoint = "tcp://127.0.0.1:\(base + 1)"
        // No worker: the job waits at the coordinator, which answers all along.
        let coordinator = try CommandRunner.start([
            "coordinator", "--insecure", "--bind", "tcp://127.0.0.1:\(base)", "--client-bind", clientEndpoint,
            "--metrics-bind", "off", "--http", "off", "--output-root", work.path,
        ])
        defer { coordinator.stop() }
        let manifest = work.appendingPathComponent("photos.txt")
        try "http://127.0.0.1:9/a.jpg\n".write(to: manifest, atomically: true, encoding: .utf8)
        let submit = try CommandRunner.start(["submit", manifest.path, "--coordinator", clientEndpoint, "--out", "out", "--give-up-after", "1"])
        defer { submit.stop() }
        XCTAssertTrue(eventually(timeout: 15) { coordinator.stderrSoFar.contains("accepted") }, coordinator.stderrSoFar)
        // The behaviour under test is a timer that must not fire: twice its time, with its check
        // every quarter of it, is enough for a submit that takes answers for silence to give up.
        Thread.sleep(forTimeInterval: 2)
        XCTAssertTrue(submit.process.isRunning, "a submit gave up on a coordinator that answers: \(submit.stderrSoFar)")

        coordinator.process.killAndReap()
        let result = submit.finish(timeout: 20)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("no word from tcp://127.0.0.1:\(base + 1) for 1 s: stopped waiting for job"), result.stderr)
        XCTAssertTrue(result.stderr.contains("cluster watch"), "it says how to follow the job again: \(result.stderr)")
    }
}
