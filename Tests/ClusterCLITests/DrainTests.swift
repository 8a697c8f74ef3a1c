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
        try run.startSteady()
        try run.startJobAndTermLeavingWorker()

        let leaving = run.leaving.finish(timeout: 20)
        XCTAssertEqual(leaving.status, 0, leaving.stderr)
        XCTAssertTrue(leaving.stderr.contains("draining: 2 photos running, 0 handed back; up to 20 s"), leaving.stderr)
        XCTAssertTrue(leaving.stderr.contains("drained: 2 photos finished here, 0 handed back"), leaving.stderr)
        let report = try run.finishJob()
        XCTAssertEqual(report["succeeded"] as? Int, 4, "\(report)")
        XCTAssertEqual(run.server.requestCount, 4, "a photo of the draining worker was downloaded again elsewhere")
        XCTAssertEqual(try run.requeues(), 0, "a photo of the draining worker was queued again")
        XCTAssertTrue(run.coordinator.stderrSoFar.contains("worker leaving is draining: 2 photos running, 0 handed back"), run.coordinator.stderrSoFar)
    }

    /// Photos a worker holds or finished, from its entry in `cluster status --json` (protobuf's
    /// JSON writes a 64-bit count as a string).
    private static func photosTaken(_ worker: [String: Any]) -> Int {
        (worker["inFlight"] as? Int ?? 0) + (Int(worker["completed"] as? String ?? "") ?? 0)
    }

    /// The same with photos that need longer than the drain timeout: handed back at the timeout,
    /// finished by the other worker.
    func testAWorkerWhosePhotosOutlastTheDrainTimeoutHandsThemBackThenAndAnotherFinishesThem() throws {
        let run = try DrainRun(secondsPerPhoto: 3, drainTimeout: 0.5)
        defer { run.stop() }
        try run.startSteady()
        try run.startJobAndTermLeavingWorker()

        let leaving = run.leaving.finish(timeout: 20)
        XCTAssertEqual(leaving.status, 0, leaving.stderr)
        XCTAssertTrue(leaving.stderr.contains("drained: 0 photos finished here, 2 handed back"), leaving.stderr)
        let report = try run.finishJob()
        XCTAssertEqual(report["succeeded"] as? Int, 4, "\(report)")
        XCTAssertEqual(run.server.requestCount, 4 + 2, "the two photos handed back were downloaded again by the other worker")
        XCTAssertEqual(try run.requeues(), 2, "the photos handed back at the timeout were queued again")
    }

    /// `leaving` alone holds more photos (its window, 18 at concurrency 6) than it downloads at
    /// once (16): those not started go to `steady`, which joins later, as soon as the drain
    /// begins, while `leaving` still runs its own.
    func testPhotosNotStartedAreHandedBackAtOnceAndTheOtherWorkerGetsThemBeforeTheDrainEnds() throws {
        // leaving's downloads take 4 s; those it hands back take 0.2 s on steady.
        let run = try DrainRun(secondsPerPhoto: 4, drainTimeout: 20, leavingConcurrency: 6, count: 18, slowRequests: 16, fastSeconds: 0.2)
        defer { run.stop() }
        try run.startJob(joined: 1)
        XCTAssertTrue(eventually(timeout: 15) { (try? run.worker("leaving")?["inFlight"] as? Int) == 18 }, "leaving holds the whole job")
        try run.startSteady()
        XCTAssertTrue(eventually(timeout: 15) { run.coordinator.stderrSoFar.components(separatedBy: "joined").count == 3 }, run.coordinator.stderrSoFar)
        run.leaving.process.send(signal: SIGTERM)

        let line = #/draining: (\d+) photos running, (\d+) handed back/#
        var counts: (running: Int, handedBack: Int)?
        XCTAssertTrue(eventually(timeout: 10) {
            counts = run.leaving.stderrSoFar.firstMatch(of: line).map { (Int($0.1)!, Int($0.2)!) }
            return counts != nil
        }, run.leaving.stderrSoFar)
        let handedBack = try XCTUnwrap(counts).handedBack
        XCTAssertGreaterThanOrEqual(handedBack, 2, "the photos beyond its 16 downloads had not started")
        XCTAssertEqual(try XCTUnwrap(counts).running + handedBack, 18)
        // Every photo went to leaving before steady joined: any photo steady holds was handed back.
        XCTAssertTrue(eventually(timeout: 10) { ((try? run.worker("steady")).flatMap { $0 }.map(Self.photosTaken) ?? 0) > 0 }, "steady got the photos handed back")
        XCTAssertTrue(run.leaving.process.isRunning, "steady got the photos handed back while leaving still drained: \(run.leaving.stderrSoFar) \(run.coordinator.stderrSoFar.suffix(3000))")
        let leaving = run.leaving.finish(timeout: 20)
        XCTAssertEqual(leaving.status, 0, leaving.stderr)
        let report = try run.finishJob()
        XCTAssertEqual(report["succeeded"] as? Int, 18, "\(report)")
        XCTAssertEqual(run.server.requestCount, 18, "no photo was downloaded twice")
    }
}

/// A coordinator, the workers `leaving` and `steady` (concurrency 1 each) and a job of four
/// photos whose downloads take `secondsPerPhoto`.
private final class DrainRun {
    let count: Int
    let server: LoopbackHTTPServer
    let work = Repository.temporaryDirectory("drain")
    let clientEndpoint: String
    let coordinator: RunningCommand
    let leaving: RunningCommand
    private var processes: [RunningCommand] = []
    private var submit: RunningCommand?

    private let workerEndpoint: String

    /// `slowRequests`: only the first so many downloads take `secondsPerPhoto`, later ones `fastSeconds`.
    init(secondsPerPhoto: Double, drainTimeout: Double, leavingConcurrency: Int = 1, count: Int = 4, slowRequests: Int = .max, fastSeconds: Double = 0) throws {
        self.count = count
        let clock = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("clock.jpg"))
        let chunk = 200
        let chunks = Double((clock.count + chunk - 1) / chunk)
        let served = LockedCounter()
        server = try LoopbackHTTPServer { _ in
            let seconds = served.next() <= slowRequests ? secondsPerPhoto : fastSeconds
            return HTTPResponse(body: clock, trickle: (chunk: chunk, interval: seconds / chunks))
        }
        let base = LoopbackPorts.consecutive(2)
        workerEndpoint = "tcp://127.0.0.1:\(base)"
        clientEndpoint = "tcp://127.0.0.1:\(base + 1)"
        coordinator = try CommandRunner.start([
            "coordinator", "--insecure", "--bind", workerEndpoint, "--client-bind", clientEndpoint, "--metrics-bind", "off", "--http", "off",
            "--output-root", work.path,
        ])
        processes.append(coordinator)
        leaving = try CommandRunner.start([
            "worker", "--insecure", "--coordinator", workerEndpoint, "--concurrency", "\(leavingConcurrency)", "--id", "leaving", "--metrics-bind", "off",
            "--drain-timeout", "\(drainTimeout)",
        ])
        processes.append(leaving)
    }

    func startSteady() throws {
        processes.append(try CommandRunner.start([
            "worker", "--insecure", "--coordinator", workerEndpoint, "--concurrency", "1", "--id", "steady", "--metrics-bind", "off",
        ]))
    }

    /// Submits the job once both workers joined, and sends SIGTERM to `leaving` once every
    /// photo's download has started (two on each worker).
    func startJobAndTermLeavingWorker() throws {
        try startJob(joined: 2)
        XCTAssertTrue(eventually(timeout: 15) { self.server.requestCount >= self.count }, "every photo's download started")
        leaving.process.send(signal: SIGTERM)
    }

    /// Submits the job once `joined` workers have.
    func startJob(joined: Int) throws {
        XCTAssertTrue(eventually(timeout: 15) { self.coordinator.stderrSoFar.components(separatedBy: "joined").count == joined + 1 }, coordinator.stderrSoFar)
        let manifest = work.appendingPathComponent("photos.txt")
        try (0..<count).map { "\(server.baseURL)/p\($0).jpg" }.joined(separator: "\n").write(to: manifest, atomically: true, encoding: .utf8)
        submit = try CommandRunner.start(["submit", manifest.path, "--coordinator", clientEndpoint, "--out", work.appendingPathComponent("out").path, "--json"])
        processes.append(submit!)
    }

    /// The job's report, once `submit` ended (it must exit 0).
    func finishJob() throws -> [String: Any] {
        let result = try XCTUnwrap(submit).finish(timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
    }

    func status() throws -> [String: Any] {
        let status = try CommandRunner.run(["status", "--coordinator", clientEndpoint, "--json"])
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], status.stdout)
    }

    /// A worker's entry in `cluster status --json` (nil: not connected).
    func worker(_ id: String) throws -> [String: Any]? {
        (try status()["workers"] as? [[String: Any]])?.first { $0["workerId"] as? String == id }
    }

    /// Photos of the job queued again, as `cluster status` counts them.
    func requeues() throws -> Int {
        let object = try status()
        let jobs = try XCTUnwrap(object["jobs"] as? [[String: Any]], "\(object)")
        XCTAssertEqual(jobs.count, 1, "\(object)")
        return jobs.first?["requeues"] as? Int ?? 0
    }

    func stop() {
        for process in processes.reversed() { process.stop() }
        server.stop()
        try? FileManager.default.removeItem(at: work)
    }
}

/// Counts the requests a server answered (its handler runs on a thread per connection).
private final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0  // guarded by lock

    func next() -> Int { lock.withLock { count += 1; return count } }
}
