import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// A worker stopped with SIGSTOP for longer than its liveness (a paused VM, a process frozen by
/// a debugger, a host swapping hard) is declared lost and its photos go to the other worker;
/// continued, it finds itself forgotten, says hello again as the same process and is forgiven
/// the losses charged for it. Nothing is lost, and nothing is written twice.
final class PausedWorkerTests: XCTestCase {
    func testAWorkerStoppedPastItsLivenessAndContinuedLosesNothingAndWritesNothingTwice() throws {
        let clock = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("clock.jpg"))
        // About 0.4 s a photo, so the stopped worker holds photos when it stops.
        let server = try LoopbackHTTPServer { _ in HTTPResponse(body: clock, trickle: (chunk: 1500, interval: 0.02)) }
        let work = Repository.temporaryDirectory("paused-worker")
        let base = LoopbackPorts.consecutive(2)
        let workerEndpoint = "tcp://127.0.0.1:\(base)"
        let clientEndpoint = "tcp://127.0.0.1:\(base + 1)"
        var processes: [RunningCommand] = []
        defer {
            for process in processes {
                process.process.send(signal: SIGCONT)
                process.stop()
            }
            server.stop()
            try? FileManager.default.removeItem(at: work)
        }
        // Liveness 1 s: five missed 200 ms heartbeats.
        let coordinator = try CommandRunner.start([
            "coordinator", "--insecure", "--bind", workerEndpoint, "--client-bind", clientEndpoint, "--heartbeat-ms", "200", "--liveness", "5",
            "--metrics-bind", "off", "--http", "off", "--output-root", work.path,
        ])
        processes.append(coordinator)
        let paused = try CommandRunner.start(["worker", "--insecure", "--coordinator", workerEndpoint, "--concurrency", "1", "--id", "paused", "--metrics-bind", "off"])
        processes.append(paused)
        processes.append(try CommandRunner.start(["worker", "--insecure", "--coordinator", workerEndpoint, "--concurrency", "1", "--id", "steady", "--metrics-bind", "off"]))
        XCTAssertTrue(eventually(timeout: 15) { coordinator.stderrSoFar.components(separatedBy: "joined").count == 3 }, coordinator.stderrSoFar)
        // Every rename the coordinator makes (each names an output), seen from outside it.
        let trace = work.appendingPathComponent("renames")
        let tracer = try RunningCommand(
            binary: URL(fileURLWithPath: "/usr/bin/strace"),
            arguments: ["-f", "-qq", "-y", "-e", "trace=rename,renameat,renameat2", "-o", trace.path, "-p", "\(coordinator.process.pid)"])
        processes.insert(tracer, at: 0)
        XCTAssertTrue(eventually(timeout: 5) { FileManager.default.fileExists(atPath: trace.path) }, "strace attached: \(tracer.stderrSoFar)")

        let count = 12
        let manifest = work.appendingPathComponent("photos.txt")
        try (0..<count).map { "\(server.baseURL)/p\($0).jpg" }.joined(separator: "\n").write(to: manifest, atomically: true, encoding: .utf8)
        let out = work.appendingPathComponent("out")
        let submit = try CommandRunner.start(["submit", manifest.path, "--coordinator", clientEndpoint, "--out", out.path, "--json"])
        processes.append(submit)
        XCTAssertTrue(eventually(timeout: 15) { self.server(server, hasServed: 3) }, "the job started")

        paused.process.send(signal: SIGSTOP)
        XCTAssertTrue(eventually(timeout: 10) { coordinator.stderrSoFar.contains("worker paused lost (no heartbeat") }, coordinator.stderrSoFar)
        Thread.sleep(forTimeInterval: 1)
        paused.process.send(signal: SIGCONT)

        let result = submit.finish(timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(report["succeeded"] as? Int, count, "a photo was lost: \(result.stdout)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0 != "index.json" && !$0.hasPrefix(".") }
        XCTAssertEqual(files.count, count, "no temporary or duplicate file: \(files.sorted())")

        XCTAssertTrue(eventually(timeout: 10) { coordinator.stderrSoFar.contains("worker paused came back as the same process") }, coordinator.stderrSoFar)
        let status = try CommandRunner.run(["status", "--coordinator", clientEndpoint, "--json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], status.stdout)
        let workers = try XCTUnwrap(object["workers"] as? [[String: Any]])
        XCTAssertEqual(Set(workers.compactMap { $0["workerId"] as? String }), ["paused", "steady"], "the continued worker serves again")

        // The paused worker's late results came back after its photos were done elsewhere: none
        // was written again. Its goodbye follows them on its one connection, so once the
        // coordinator has logged the goodbye it has handled them all; a clean stop of the
        // coordinator then waits for every write it started.
        paused.stop()
        XCTAssertTrue(eventually(timeout: 10) { coordinator.stderrSoFar.contains("worker paused lost (it left)") }, coordinator.stderrSoFar)
        coordinator.stop()
        XCTAssertEqual(coordinator.process.status, 0, "the coordinator stopped cleanly, its writes done: \(coordinator.stderrSoFar.suffix(2000))")
        tracer.stop()
        let directory = try XCTUnwrap(realpath(out.path, nil).map { pointer in defer { free(pointer) }; return String(cString: pointer) })
        let names = ((try? String(contentsOf: trace, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line -> String? in
            guard line.contains("rename"), line.contains("<\(directory)>"), let end = line.range(of: "\"", options: .backwards),
                let start = line[..<end.lowerBound].range(of: "\"", options: .backwards) else { return nil }
            return String(line[start.upperBound..<end.lowerBound])
        }
        let writes = Dictionary(names.map { ($0, 1) }, uniquingKeysWith: +)
        XCTAssertEqual(writes.filter { $0.key != "index.json" && !$0.key.hasPrefix(".") }.count, count, "every photo written: \(writes)")
        XCTAssertEqual(writes.filter { $0.value > 1 }, [:], "photos written twice")
    }

    private func server(_ server: LoopbackHTTPServer, hasServed requests: Int) -> Bool {
        server.requestCount >= requests
    }
}
