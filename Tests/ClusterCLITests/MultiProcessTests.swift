import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// A coordinator and two workers as separate `cluster` processes over TCP on loopback.
final class MultiProcessTests: XCTestCase {
    func testSubmitThroughTheClientEndpointUsesBothWorkers() throws {
        let server = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        let work = Repository.temporaryDirectory("multi")
        var processes: [RunningCommand] = []
        defer {
            for process in processes { process.stop() }
            server.stop()
            try? FileManager.default.removeItem(at: work)
        }
        let base = LoopbackPorts.consecutive(2)
        let workerEndpoint = "tcp://127.0.0.1:\(base)"
        let clientEndpoint = "tcp://127.0.0.1:\(base + 1)"

        // Workers first: they keep retrying until the coordinator is there.
        for id in ["left", "right"] {
            processes.append(try CommandRunner.start(["worker", "--insecure", "--coordinator", workerEndpoint, "--concurrency", "1", "--id", id]))
        }
        let coordinator = try CommandRunner.start(["coordinator", "--insecure", "--bind", workerEndpoint, "--client-bind", clientEndpoint, "--heartbeat-ms", "200", "--output-root", work.path])
        processes.append(coordinator)
        XCTAssertTrue(eventually(timeout: 15) {
            coordinator.stderrSoFar.contains("worker left joined") && coordinator.stderrSoFar.contains("worker right joined")
        }, coordinator.stderrSoFar)
        // --insecure keeps everything open, and says so at start.
        XCTAssertTrue(coordinator.stderrSoFar.contains(
            "no CURVE keys: any process that reaches the endpoints may join as a worker, and any client may see and act on every job"),
            coordinator.stderrSoFar)

        let manifest = work.appendingPathComponent("photos.txt")
        try Repository.samplePhotoFiles.map { "\(server.baseURL)/\($0)" }.joined(separator: "\n").write(to: manifest, atomically: true, encoding: .utf8)
        let out = work.appendingPathComponent("out")
        let submit = try CommandRunner.run(["submit", manifest.path, "--coordinator", clientEndpoint, "--out", out.path, "--json"])
        XCTAssertEqual(submit.status, 0, submit.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(submit.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["succeeded"] as? Int, Repository.samplePhotoFiles.count)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0 != "index.json" && !$0.hasPrefix(".") }.count, Repository.samplePhotoFiles.count)

        let status = try CommandRunner.run(["status", "--coordinator", clientEndpoint, "--json"])
        XCTAssertEqual(status.status, 0, status.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let workers = try XCTUnwrap(object["workers"] as? [[String: Any]])
        let completed = Dictionary(uniqueKeysWithValues: workers.map { ($0["workerId"] as? String ?? "?", Int($0["completed"] as? String ?? "0") ?? 0) })
        XCTAssertGreaterThan(completed["left"] ?? 0, 0, "\(completed)")
        XCTAssertGreaterThan(completed["right"] ?? 0, 0, "\(completed)")
        XCTAssertEqual((completed["left"] ?? 0) + (completed["right"] ?? 0), Repository.samplePhotoFiles.count)
    }

    func testSubmitToAnAbsentCoordinatorFailsWithAHint() throws {
        let work = Repository.temporaryDirectory("absent")
        defer { try? FileManager.default.removeItem(at: work) }
        let manifest = work.appendingPathComponent("m.txt")
        try "http://127.0.0.1:9/a.jpg\n".write(to: manifest, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["status", "--coordinator", "tcp://127.0.0.1:9", "--timeout", "0.5"], timeout: 30)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("cluster coordinator"), result.stderr)
    }
}
