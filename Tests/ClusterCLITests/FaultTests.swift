import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// Real processes killed with SIGKILL mid-job: the job still completes, every photo exactly once.
final class FaultTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var work: URL!
    private var processes: [RunningCommand] = []
    private var base = 0

    override func setUpWithError() throws {
        let clock = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("clock.jpg"))
        // About 0.3 s a photo, so a good part of the job is in flight when a process dies.
        server = try LoopbackHTTPServer { _ in HTTPResponse(body: clock, trickle: (chunk: 1600, interval: 0.05)) }
        work = Repository.temporaryDirectory("faults")
        base = LoopbackPorts.consecutive(2)
    }

    override func tearDown() {
        for process in processes { process.stop() }
        server?.stop()
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    private var workerEndpoint: String { "tcp://127.0.0.1:\(base)" }
    private var clientEndpoint: String { "tcp://127.0.0.1:\(base + 1)" }

    private func startCoordinator(state: String? = nil) throws -> RunningCommand {
        var arguments = ["coordinator", "--insecure", "--bind", workerEndpoint, "--client-bind", clientEndpoint, "--heartbeat-ms", "200", "--liveness", "10", "--output-root", work.path]
        if let state { arguments += ["--state", state] }
        // A coordinator on a database waits for the killed one's lease to lapse: keep it short.
        if state?.hasPrefix("postgres") == true { arguments += ["--lease-seconds", "2"] }
        let coordinator = try CommandRunner.start(arguments)
        processes.append(coordinator)
        return coordinator
    }

    private func startWorker(_ id: String) throws -> RunningCommand {
        let worker = try CommandRunner.start(["worker", "--insecure", "--coordinator", workerEndpoint, "--concurrency", "1", "--id", id])
        processes.append(worker)
        return worker
    }

    private func manifest(_ count: Int) throws -> URL {
        let url = work.appendingPathComponent("photos.txt")
        try (0..<count).map { "\(server.baseURL)/p\($0).jpg" }.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// The submit's JSON report once it exits.
    private func report(of submit: RunningCommand) throws -> [String: Any] {
        XCTAssertTrue(eventually(timeout: 60) { !submit.process.isRunning }, "the submit finished")
        let result = submit.finish()
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
    }

    private func checkEveryPhotoOnce(_ report: [String: Any], out: URL, count: Int) throws {
        XCTAssertEqual(report["succeeded"] as? Int, count)
        let outputs = try XCTUnwrap(report["outputs"] as? [[String: Any]])
        XCTAssertEqual(outputs.count, count)
        XCTAssertEqual(Set(outputs.compactMap { $0["path"] as? String }).count, count, "each photo has its own file")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0 != "index.json" && !$0.hasPrefix(".") }
        XCTAssertEqual(files.count, count, "no temporary or duplicate file: \(files.filter { $0.hasPrefix(".") })")
    }

    func testAWorkerKilledMidJobLosesNothing() throws {
        let coordinator = try startCoordinator()
        let doomed = try startWorker("doomed")
        _ = try startWorker("survivor")
        XCTAssertTrue(eventually(timeout: 15) { coordinator.stderrSoFar.components(separatedBy: "joined").count == 3 }, coordinator.stderrSoFar)
        let out = work.appendingPathComponent("out")
        let submit = try CommandRunner.start(["submit", try manifest(16).path, "--coordinator", clientEndpoint, "--out", out.path, "--json"])
        processes.append(submit)
        XCTAssertTrue(eventually(timeout: 15) { self.server.requestCount >= 4 })
        doomed.process.killAndReap()
        try checkEveryPhotoOnce(try report(of: submit), out: out, count: 16)
        XCTAssertTrue(coordinator.stderrSoFar.contains("worker doomed lost"), coordinator.stderrSoFar)
        XCTAssertFalse(coordinator.stderrSoFar.contains("worker survivor lost"), "a live worker follows the coordinator's heartbeat: \(coordinator.stderrSoFar)")
        let status = try CommandRunner.run(["status", "--coordinator", clientEndpoint])
        XCTAssertTrue(status.stdout.range(of: #"requeues [1-9]"#, options: .regularExpression) != nil, status.stdout)
    }

    func testACoordinatorKilledMidJobAndRestartedFinishesTheJob() throws {
        try killTheCoordinatorMidJobAndRestartIt(state: work.appendingPathComponent("state").path)
    }

    /// The same on a PostgreSQL journal (a throwaway server): the restart continues from the database.
    func testACoordinatorOnPostgresKilledMidJobAndRestartedFinishesTheJob() throws {
        guard ThrowawayPostgres.isInstalled else { throw XCTSkip(ThrowawayPostgres.missing) }
        try killTheCoordinatorMidJobAndRestartIt(state: try ThrowawayPostgres.shared().freshDatabase("faults"))
    }

    private func killTheCoordinatorMidJobAndRestartIt(state: String) throws {
        let coordinator = try startCoordinator(state: state)
        _ = try startWorker("a")
        _ = try startWorker("b")
        XCTAssertTrue(eventually(timeout: 15) { coordinator.stderrSoFar.components(separatedBy: "joined").count == 3 }, coordinator.stderrSoFar)
        let out = work.appendingPathComponent("out")
        let submit = try CommandRunner.start(["submit", try manifest(16).path, "--coordinator", clientEndpoint, "--out", out.path, "--json"])
        processes.append(submit)
        XCTAssertTrue(eventually(timeout: 30) {
            ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).filter { $0.hasSuffix(".jpg") }.count >= 3
        }, "some photos were done before the crash")
        coordinator.process.killAndReap()
        Thread.sleep(forTimeInterval: 0.5)
        let restarted = try startCoordinator(state: state)
        XCTAssertTrue(eventually(timeout: 10) { restarted.stderrSoFar.contains("restored from the journal") }, restarted.stderrSoFar)
        try checkEveryPhotoOnce(try report(of: submit), out: out, count: 16)
        let status = try CommandRunner.run(["status", "--coordinator", clientEndpoint])
        XCTAssertTrue(status.stdout.contains("16/16 done"), status.stdout)
        XCTAssertFalse(restarted.stderrSoFar.contains("lost (no heartbeat"), restarted.stderrSoFar)
    }
}
