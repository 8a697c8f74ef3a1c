import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// The wall clock may jump (NTP stepping it, an operator's `date -s`); liveness, timers and
/// retries run on the monotonic clock, so a jump changes nothing. Only the coordinator's wall
/// clock is moved, with libfaketime (`LD_PRELOAD`, re-reading its offset file on every call;
/// the monotonic clocks are left alone, as NTP leaves them).
final class ClockStepTests: XCTestCase {
    func testAWallClockStepForwardAndBackLosesNoWorkerAndStopsNoTimer() throws {
        let library = try Self.faketimeLibrary()
        let server = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        let work = Repository.temporaryDirectory("clock-step")
        var processes: [RunningCommand] = []
        defer {
            for process in processes { process.stop() }
            server.stop()
            try? FileManager.default.removeItem(at: work)
        }
        let offset = work.appendingPathComponent("offset")
        try "+0".write(to: offset, atomically: true, encoding: .utf8)
        let base = LoopbackPorts.consecutive(2)
        let workerEndpoint = "tcp://127.0.0.1:\(base)"
        let clientEndpoint = "tcp://127.0.0.1:\(base + 1)"
        // Liveness 1 s: five missed 200 ms heartbeats.
        // Through env(1): libfaketime, loaded first in a process, exports the name of its shared
        // memory with setenv, which moves `environ`, where Swift finds the program's arguments on
        // Linux; loaded in env first, it has exported it already when `cluster` starts.
        let coordinator = try RunningCommand(
            binary: URL(fileURLWithPath: "/usr/bin/env"),
            arguments: [Repository.clusterBinary.path, "coordinator", "--insecure", "--bind", workerEndpoint, "--client-bind", clientEndpoint,
                        "--heartbeat-ms", "200", "--liveness", "5", "--metrics-bind", "off", "--http", "off", "--output-root", work.path],
            environment: ["LD_PRELOAD": library, "FAKETIME_TIMESTAMP_FILE": offset.path, "FAKETIME_NO_CACHE": "1", "FAKETIME_DONT_FAKE_MONOTONIC": "1"])
        processes.append(coordinator)
        var workers: [RunningCommand] = []
        for id in ["a", "b"] {
            workers.append(try CommandRunner.start(["worker", "--insecure", "--coordinator", workerEndpoint, "--concurrency", "1", "--id", id, "--metrics-bind", "off"]))
        }
        processes += workers
        XCTAssertTrue(eventually(timeout: 15) { coordinator.stderrSoFar.components(separatedBy: "joined").count == 3 }, "\(coordinator.process.status.map { "exited \($0)" } ?? "running"): \(coordinator.stderrSoFar) \(workers.map(\.stderrSoFar))")

        // Each step is held past the liveness (1 s) on purpose: timers that must not misfire are
        // what is tested, and only time passing can show that they did not.
        // An hour forward: a wall-clock deadline finds every worker silent for an hour.
        try "+1h".write(to: offset, atomically: true, encoding: .utf8)
        Thread.sleep(forTimeInterval: 1.5)
        // Two hours back: a wall-clock timer waits two hours for its next turn, so the workers
        // hear no heartbeat and retries are never released.
        try "-1h".write(to: offset, atomically: true, encoding: .utf8)
        Thread.sleep(forTimeInterval: 1.5)

        let manifest = work.appendingPathComponent("photos.txt")
        try Repository.samplePhotoFiles.prefix(4).map { "\(server.baseURL)/\($0)" }.joined(separator: "\n")
            .write(to: manifest, atomically: true, encoding: .utf8)
        let submit = try CommandRunner.run(["submit", manifest.path, "--coordinator", clientEndpoint, "--out", work.appendingPathComponent("out").path], timeout: 30)
        XCTAssertEqual(submit.status, 0, submit.stderr)
        XCTAssertFalse(coordinator.stderrSoFar.contains(" lost ("), "a worker was declared lost: \(coordinator.stderrSoFar)")
        for worker in workers {
            XCTAssertFalse(worker.stderrSoFar.contains("no word from the coordinator"), "the coordinator's heartbeats stopped: \(worker.stderrSoFar)")
        }
    }

    /// libfaketime's library (Debian's libfaketime, installed by scripts/install-test-tools).
    static func faketimeLibrary() throws -> String {
        let directories = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []
        for directory in ["/usr/lib/faketime"] + directories.map({ "/usr/lib/\($0)/faketime" }) {
            let path = "\(directory)/libfaketime.so.1"
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        throw XCTSkip("libfaketime is missing: run scripts/install-test-tools (Debian package libfaketime)")
    }
}
