import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// A photo that kills every worker that decodes it (the debug build's crash hook, a SIGKILL as
/// the OOM killer sends) fails after --max-worker-losses workers died holding it, while every
/// other photo finishes: workers are restarted as systemd or Kubernetes would, and the cluster
/// serves the next job.
final class PoisonPhotoTests: XCTestCase {
    func testAPhotoThatKillsItsWorkersFailsAfterTheLimitWhileTheOthersFinish() throws {
        let clock = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("clock.jpg"))
        let server = try LoopbackHTTPServer { _ in HTTPResponse(body: clock) }
        let work = Repository.temporaryDirectory("poison")
        let base = LoopbackPorts.consecutive(3)
        let workerEndpoint = "tcp://127.0.0.1:\(base)"
        let clientEndpoint = "tcp://127.0.0.1:\(base + 1)"
        let coordinator = try CommandRunner.start([
            "coordinator", "--insecure", "--bind", workerEndpoint, "--client-bind", clientEndpoint, "--heartbeat-ms", "200", "--liveness", "10",
            "--max-worker-losses", "3", "--metrics-bind", "127.0.0.1:\(base + 2)", "--http", "off", "--output-root", work.path,
        ])
        let supervisor = Supervisor(ids: ["w1", "w2"]) { id in
            try CommandRunner.start(
                ["worker", "--insecure", "--coordinator", workerEndpoint, "--concurrency", "1", "--id", id, "--metrics-bind", "off"],
                environment: ["PHOTOCLUSTER_TEST_CRASH_ON_URL": "poison"])
        }
        defer {
            supervisor.stop()
            coordinator.stop()
            server.stop()
            try? FileManager.default.removeItem(at: work)
        }
        try supervisor.start()
        XCTAssertTrue(eventually(timeout: 15) { coordinator.stderrSoFar.components(separatedBy: "joined").count == 3 }, coordinator.stderrSoFar)

        let names = (0..<10).map { $0 == 4 ? "poison.jpg" : "p\($0).jpg" }
        let manifest = work.appendingPathComponent("photos.txt")
        try names.map { "\(server.baseURL)/\($0)" }.joined(separator: "\n").write(to: manifest, atomically: true, encoding: .utf8)
        // Started and finished rather than run: a submit that never ends is this test's failure, not a skip.
        let submit = try CommandRunner.start(
            ["submit", manifest.path, "--coordinator", clientEndpoint, "--out", work.appendingPathComponent("out").path, "--json"]
        ).finish(timeout: 60)
        XCTAssertEqual(submit.status, 1, "one photo failed: \(submit.stderr)")
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(submit.stdout.utf8)) as? [String: Any], submit.stdout)
        XCTAssertEqual(report["succeeded"] as? Int, 9, "every other photo finished: \(submit.stdout)")
        let failed = try XCTUnwrap(report["failed"] as? [[String: Any]])
        XCTAssertEqual(failed.count, 1, submit.stdout)
        XCTAssertEqual(failed.first?["name"] as? String, "poison.jpg")
        XCTAssertEqual(failed.first?["error"] as? String, "worker lost 3 times while processing this photo; it may crash workers")
        // Three deaths charged to it, and one more when it was first lost beside other photos
        // (then nobody is charged: the culprit is unknown).
        let restarts = supervisor.restarts
        XCTAssertTrue((3...4).contains(restarts), "workers died \(restarts) times")

        let log = coordinator.stderrSoFar
        XCTAssertTrue(log.contains("warning coordinator: photo 4 (poison.jpg) failed: worker lost 3 times"), log)
        XCTAssertTrue(log.contains("workers lost: w"), "the warning names the workers: \(log)")
        let metrics = try PlainHTTPClient.send("GET", "http://127.0.0.1:\(base + 2)/metrics")
        XCTAssertTrue(String(decoding: metrics.body, as: UTF8.self).contains("photocluster_poison_photos_total 1"))
        let status = try CommandRunner.run(["status", "--coordinator", clientEndpoint, "--json"])
        XCTAssertTrue(status.stdout.contains("it may crash workers"), "the recent failures show it: \(status.stdout)")

        // Both workers, restarted, serve the next job.
        try names.filter { $0 != "poison.jpg" }.map { "\(server.baseURL)/again-\($0)" }.joined(separator: "\n")
            .write(to: manifest, atomically: true, encoding: .utf8)
        let again = try CommandRunner.start(["submit", manifest.path, "--coordinator", clientEndpoint, "--out", work.appendingPathComponent("again").path])
            .finish(timeout: 60)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(supervisor.restarts, restarts, "a worker died during the second job")
    }
}

extension PoisonPhotoTests {
    /// A photo that kills its worker after it was admitted (as one whose decode outgrows its
    /// grant is OOM-killed) fails naming the memory the worker granted it.
    func testAPhotoThatKillsItsWorkersAfterItsAdmissionFailsNamingItsGrant() throws {
        let clock = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("clock.jpg"))
        let server = try LoopbackHTTPServer { _ in HTTPResponse(body: clock) }
        let work = Repository.temporaryDirectory("poison-grant")
        let base = LoopbackPorts.consecutive(2)
        let workerEndpoint = "tcp://127.0.0.1:\(base)"
        let clientEndpoint = "tcp://127.0.0.1:\(base + 1)"
        let coordinator = try CommandRunner.start([
            "coordinator", "--insecure", "--bind", workerEndpoint, "--client-bind", clientEndpoint, "--heartbeat-ms", "200", "--liveness", "10",
            "--max-worker-losses", "2", "--metrics-bind", "off", "--http", "off", "--output-root", work.path,
        ])
        let supervisor = Supervisor(ids: ["w1"]) { id in
            try CommandRunner.start(
                ["worker", "--insecure", "--coordinator", workerEndpoint, "--id", id, "--metrics-bind", "off", "--memory-limit", "1024"],
                environment: ["PHOTOCLUSTER_TEST_CRASH_AFTER_ADMISSION_ON_URL": "poison"])
        }
        defer {
            supervisor.stop()
            coordinator.stop()
            server.stop()
            try? FileManager.default.removeItem(at: work)
        }
        try supervisor.start()
        XCTAssertTrue(eventually(timeout: 15) { coordinator.stderrSoFar.contains("joined") }, coordinator.stderrSoFar)
        let manifest = work.appendingPathComponent("photos.txt")
        try "\(server.baseURL)/poison.jpg".write(to: manifest, atomically: true, encoding: .utf8)
        let submit = try CommandRunner.start(
            ["submit", manifest.path, "--coordinator", clientEndpoint, "--out", work.appendingPathComponent("out").path, "--json"]
        ).finish(timeout: 60)
        XCTAssertEqual(submit.status, 1, submit.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(submit.stdout.utf8)) as? [String: Any], submit.stdout)
        let reason = try XCTUnwrap((report["failed"] as? [[String: Any]])?.first?["error"] as? String, submit.stdout)
        XCTAssertNotNil(
            reason.range(of: #"^worker lost 2 times while processing this photo, which was granted [1-9][0-9]* MiB of memory; it may crash workers$"#,
                         options: .regularExpression), reason)
    }
}

/// Restarts each worker whenever it exits, as systemd (`Restart=on-failure`) or Kubernetes would.
/// `@unchecked Sendable`: the processes and the count are guarded by `lock`.
final class Supervisor: @unchecked Sendable {
    private let ids: [String]
    private let launch: (String) throws -> RunningCommand
    private let lock = NSLock()
    private var running: [String: RunningCommand] = [:]
    private var restartCount = 0
    private var stopping = false
    private let stopped = DispatchSemaphore(value: 0)

    init(ids: [String], launch: @escaping (String) throws -> RunningCommand) {
        self.ids = ids
        self.launch = launch
    }

    /// Workers restarted so far.
    var restarts: Int { lock.withLock { restartCount } }

    func start() throws {
        for id in ids { running[id] = try launch(id) }
        Thread { [self] in
            while !lock.withLock({ stopping }) {
                for id in ids {
                    lock.withLock {
                        guard !stopping, let process = running[id], !process.process.isRunning else { return }
                        if let restarted = try? launch(id) {
                            running[id] = restarted
                            restartCount += 1
                        }
                    }
                }
                usleep(50_000)
            }
            stopped.signal()
        }.start()
    }

    func stop() {
        lock.withLock { stopping = true }
        stopped.wait()
        for process in lock.withLock({ Array(running.values) }) { process.stop() }
    }
}
