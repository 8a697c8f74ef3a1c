import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// A worker and a `cluster submit` given two coordinator endpoints, A and B, while B leads and
/// A is a standby (nothing bound): B freezes (SIGSTOP: its ports stay open, nothing answers),
/// and a coordinator at A takes over B's journal. The worker leaves B after its liveness period
/// and registers with A, and the submit follows the job there and sees it finish with every
/// photo; neither is restarted.
final class FrozenCoordinatorTests: XCTestCase {
    func testAWorkerAndASubmitFollowTheJobFromAFrozenCoordinatorToTheOneThatTakesOver() throws {
        let clock = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("clock.jpg"))
        // About 0.4 s a photo, so the job is under way when B freezes.
        let server = try LoopbackHTTPServer { _ in HTTPResponse(body: clock, trickle: (chunk: 500, interval: 0.02)) }
        let work = Repository.temporaryDirectory("frozen-coordinator")
        let state = work.appendingPathComponent("state")
        let base = LoopbackPorts.consecutive(4)
        let (workersA, clientsA) = ("tcp://127.0.0.1:\(base)", "tcp://127.0.0.1:\(base + 1)")
        let (workersB, clientsB) = ("tcp://127.0.0.1:\(base + 2)", "tcp://127.0.0.1:\(base + 3)")
        var processes: [RunningCommand] = []
        defer {
            for process in processes {
                process.process.send(signal: SIGCONT)
                process.stop()
            }
            server.stop()
            try? FileManager.default.removeItem(at: work)
        }
        func coordinator(workers: String, clients: String) throws -> RunningCommand {
            let process = try CommandRunner.start([
                "coordinator", "--insecure", "--bind", workers, "--client-bind", clients, "--state", state.path,
                "--metrics-bind", "off", "--http", "off", "--output-root", work.path,
            ])
            processes.append(process)
            return process
        }
        let coordinatorB = try coordinator(workers: workersB, clients: clientsB)
        let worker = try CommandRunner.start([
            "worker", "--insecure", "--coordinator", "\(workersA),\(workersB)", "--concurrency", "1", "--id", "follower", "--metrics-bind", "off",
        ])
        processes.append(worker)
        XCTAssertTrue(eventually(timeout: 15) { worker.stderrSoFar.contains("at \(workersB)") && worker.stderrSoFar.contains("registered with coordinator-") },
            worker.stderrSoFar)
        XCTAssertTrue(worker.stderrSoFar.contains("\(workersA) refuses connections; trying \(workersB)"), worker.stderrSoFar)

        let count = 8
        let manifest = work.appendingPathComponent("photos.txt")
        try (0..<count).map { "\(server.baseURL)/p\($0).jpg" }.joined(separator: "\n").write(to: manifest, atomically: true, encoding: .utf8)
        let submit = try CommandRunner.start(["submit", manifest.path, "--coordinator", "\(clientsA),\(clientsB)", "--out", "out", "--json"])
        processes.append(submit)
        XCTAssertTrue(eventually(timeout: 15) { server.requestCount >= 2 }, "the job got under way at B: \(coordinatorB.stderrSoFar)")

        coordinatorB.process.send(signal: SIGSTOP)
        let coordinatorA = try coordinator(workers: workersA, clients: clientsA)
        XCTAssertTrue(eventually(timeout: 20) { worker.stderrSoFar.contains("registered with coordinator-") && worker.stderrSoFar.contains("at \(workersA)\n") },
            "worker:\n\(worker.stderrSoFar)\ncoordinator A:\n\(coordinatorA.stderrSoFar)")
        // Whichever notices first: the worker's own silence check, or libzmq's ZMTP heartbeat
        // (3 s), which drops the connection to a process that stopped answering.
        XCTAssertTrue(["has been silent for", "closed the connection"].contains { worker.stderrSoFar.contains("\(workersB) \($0)") }, worker.stderrSoFar)

        let result = submit.finish(timeout: 60)
        XCTAssertEqual(result.status, 0, "submit:\n\(result.stderr)\ncoordinator A:\n\(coordinatorA.stderrSoFar)")
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(report["succeeded"] as? Int, count, result.stdout)
    }
}
