import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// A worker told to stop (SIGTERM) drains: the photos it runs finish there and are reported
/// (nothing of them is downloaded again elsewhere), unless they need longer than its
/// `--drain-timeout`: then they are handed back at the timeout and the other worker finishes
/// them. Either way the worker exits 0 and the job loses nothing. Photos take seconds because
/// their downloads are trickled out; the server counts every download.
final class DrainTests: XCTestCase {
    /// Two workers, four photos (two each, every download started); the worker `leaving` gets
    /// SIGTERM with its photos a second or two from done.
    func testAWorkerSIGTERMedFinishesItsRunningPhotosAndNothingIsRedoneElsewhere() throws {
        let run = try DrainRun(secondsPerPhoto: 2.5, drainTimeout: 20)
        defer { run.stop() }
        try run.startJobAndTermLeavingWorker()

        let leaving = run.leaving.finish(timeout: 20)
        XCTAssertEqual(leaving.status, 0, leaving.stderr)
        XCTAssertTrue(leaving.stderr.contains("draining: 2 photos running, 0 handed back; up to 20 s"), leaving.stderr)
        XCTAssertTrue(leaving.stderr.contains("drained: 2 photos finished here, 0 handed back"), leaving.stderr)
        let report = try run.finishJob()
        XCTAssertEqual(report["succeeded"] as? Int, DrainRun.count, "\(report)")
        XCTAssertEqual(run.server.requestCount, DrainRun.count, "a photo of the draining worker was downloaded again elsewhere")
        XCTAssertEqual(try run.requeues(), 0, "a photo of the draining worker was queued again")
        XCTAssertTrue(run.coordinator.stderrSoFar.contains("worker leaving is draining: 2 photos running, 0 handed back"), run.coordinator.stderrSoFar)
    }

    /// The same with photos that need longer than the drain timeout: handed back at the timeout,
    /// finished by the other worker.
    func testAWorkerWhosePhotosOutlastTheDrainTimeoutHandsThemBackThenAndAnotherFinishesThem() throws {
        let run = try DrainRun(secondsPerPhoto: 3, drainTimeout: 0.5)
        defer { run.stop() }
        try run.startJobAndTermLeavingWorker()

        let leaving = run.leaving.finish(timeout: 20)
        XCTAssertEqual(leaving.status, 0, leaving.stderr)
        XCTAssertTrue(leaving.stderr.contains("drained: 0 photos finished here, 2 handed back"), leaving.stderr)
        let report = try run.finishJob()
        XCTAssertEqual(report["succeeded"] as? Int, DrainRun.count, "\(report)")
        XCTAssertEqual(run.server.requestCount, DrainRun.count + 2, "the two photos handed back were downloaded again by the other worker")
        XCTAssertEqual(try run.requeues(), 2, "the photos handed back at the timeout were queued again")
    }
}

/// A coordinator, the workers `leaving` and `steady` (concurrency 1 each) and a job of four
/// photos whose downloads take `secondsPerPhoto`.
private final class DrainRun {
    static let count = 4
    let server: LoopbackHTTPServer
    let work = Repository.temporaryDirectory("drain")
    let clientEndpoint: String
    let coordinator: RunningCommand
    let leaving: RunningCommand
    private var processes: [RunningCommand] = []
    private var submit: RunningCommand?

    init(secondsPerPhoto: Double, drainTimeout: Double) throws {
        let clock = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("clock.jpg"))
        let chunk = 200
        let interval = secondsPerPhoto / Double((clock.count + chunk - 1) / chunk)
        server = try LoopbackHTTPServer { _ in HTTPResponse(body: clock, trickle: (chunk: chunk, interval: interval)) }
        let base = LoopbackPorts.consecutive(2)
        let workerEndpoint = "tcp://127.0.0.1:\(base)"
        clientEndpoint = "tcp://127.0.0.1:\(base + 1)"
        coordinator = try CommandRunner.start([
            "coordinator", "--insecure", "--bind", workerEndpoint, "--client-bind", clientEndpoint, "--metrics-bind", "off", "--http", "off",
            "--output-root", work.path,
        ])
        processes.append(coordinator)
        leaving = try CommandRunner.start([
            "worker", "--insecure", "--coordinator", workerEndpoint, "--concurrency", "1", "--id", "leaving", "--metrics-bind", "off",
            "--drain-timeout", "\(drainTimeout)",
        ])
        processes.append(leaving)
        processes.append(try CommandRunner.start([
            "worker", "--insecure", "--coordinator", workerEndpoint, "--concurrency", "1", "--id", "steady", "--metrics-bind", "off",
        ]))
    }

    /// Submits the job once both workers joined, and sends SIGTERM to `leaving` once every
    /// photo's download has started (two on each worker).
    func startJobAndTermLeavingWorker() throws {
        XCTAssertTrue(eventually(timeout: 15) { self.coordinator.stderrSoFar.components(separatedBy: "joined").count == 3 }, coordinator.stderrSoFar)
        let manifest = work.appendingPathComponent("photos.txt")
        try (0..<Self.count).map { "\(server.baseURL)/p\($0).jpg" }.joined(separator: "\n").write(to: manifest, atomically: true, encoding: .utf8)
        submit = try CommandRunner.start(["submit", manifest.path, "--coordinator", clientEndpoint, "--out", work.appendingPathComponent("out").path, "--json"])
        processes.append(submit!)
        XCTAssertTrue(eventually(timeout: 15) { self.server.requestCount >= Self.count }, "every photo's download started")
        leaving.process.send(signal: SIGTERM)
    }

    /// The job's report, once `submit` ended (it must exit 0).
    func finishJob() throws -> [String: Any] {
        let result = try XCTUnwrap(submit).finish(timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
    }

    /// Photos of the job queued again, as `cluster status` counts them.
    func requeues() throws -> Int {
        let status = try CommandRunner.run(["status", "--coordinator", clientEndpoint, "--json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], status.stdout)
        let jobs = try XCTUnwrap(object["jobs"] as? [[String: Any]], status.stdout)
        XCTAssertEqual(jobs.count, 1, status.stdout)
        return jobs.first?["requeues"] as? Int ?? 0
    }

    func stop() {
        for process in processes.reversed() { process.stop() }
        server.stop()
        try? FileManager.default.removeItem(at: work)
    }
}
