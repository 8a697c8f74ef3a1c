import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// Two coordinator processes on one PostgreSQL journal (a throwaway server), two workers and a
/// `cluster submit` given both coordinators: the leader is SIGKILLed, or frozen with SIGSTOP and
/// woken after the standby took over, mid-job. The job ends with every photo written once and
/// the submit exits 0 without a restart; a woken leader writes nothing and stands by again.
final class StandbyCoordinatorTests: XCTestCase {
    private static let photos = 2000
    private static let leaseSeconds = 2.0
    private var server: LoopbackHTTPServer!
    private var work: URL!
    private var processes: [RunningCommand] = []
    private var base = 0
    private var database = ""

    override func setUpWithError() throws {
        guard ThrowawayPostgres.isInstalled else { throw XCTSkip(ThrowawayPostgres.missing) }
        let clock = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("clock.jpg"))
        server = try LoopbackHTTPServer { _ in HTTPResponse(body: clock) }
        work = Repository.temporaryDirectory("standby")
        base = LoopbackPorts.consecutive(4)
        database = try ThrowawayPostgres.shared().freshDatabase("standby")
    }

    override func tearDown() {
        for process in processes {
            process.process.send(signal: SIGCONT)
            process.stop()
        }
        server?.stop()
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    private func workerEndpoint(_ coordinator: Int) -> String { "tcp://127.0.0.1:\(base + 2 * coordinator)" }
    private func clientEndpoint(_ coordinator: Int) -> String { "tcp://127.0.0.1:\(base + 2 * coordinator + 1)" }
    private var out: URL { work.appendingPathComponent("out") }

    private func startCoordinator(_ index: Int) throws -> RunningCommand {
        let coordinator = try CommandRunner.start([
            "coordinator", "--insecure", "--bind", workerEndpoint(index), "--client-bind", clientEndpoint(index),
            "--state", database, "--lease-seconds", "\(Self.leaseSeconds)", "--output-root", work.path,
            "--heartbeat-ms", "200", "--liveness", "5", "--metrics-bind", "off", "--http", "off",
        ])
        processes.append(coordinator)
        return coordinator
    }

    /// Leader first (so which one leads is known), then the standby, two workers and the submit.
    private func startCluster() throws -> (leader: RunningCommand, standby: RunningCommand, submit: RunningCommand) {
        let leader = try startCoordinator(0)
        XCTAssertTrue(eventually(timeout: 20) { leader.stderrSoFar.contains("workers connect to") }, leader.stderrSoFar)
        let standby = try startCoordinator(1)
        XCTAssertTrue(eventually(timeout: 20) { standby.stderrSoFar.contains("standing by on") }, standby.stderrSoFar)
        for id in ["a", "b"] {
            processes.append(try CommandRunner.start([
                "worker", "--insecure", "--coordinator", "\(workerEndpoint(0)),\(workerEndpoint(1))", "--concurrency", "2", "--id", id,
            ]))
        }
        let manifest = work.appendingPathComponent("photos.txt")
        try (0..<Self.photos).map { "\(server.baseURL)/p\($0).jpg" }.joined(separator: "\n").write(to: manifest, atomically: true, encoding: .utf8)
        let submit = try CommandRunner.start([
            "submit", manifest.path, "--coordinator", "\(clientEndpoint(0)),\(clientEndpoint(1))", "--out", out.path, "--json",
        ])
        processes.append(submit)
        XCTAssertTrue(eventually(timeout: 60) { self.outputs().count >= 300 }, "photos were done before the fault: \(leader.stderrSoFar.suffix(2000))")
        return (leader, standby, submit)
    }

    private func outputs() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).filter { $0.hasSuffix(".jpg") }
    }

    private func psql(_ sql: String) throws -> [String] { try ThrowawayPostgres.shared().psql(database, sql) }

    /// The submit's report says every photo succeeded, each in a file of its own, with no
    /// temporary file left, and the journal holds each photo once, done.
    private func checkEveryPhotoWrittenOnce(_ submit: RunningCommand) throws {
        let result = submit.finish(timeout: 120)
        XCTAssertEqual(result.status, 0, "\(result.stderr)\njournal: \((try? psql("SELECT state, count(*) FROM photos GROUP BY state")) ?? [])\n\(logs())")
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(report["succeeded"] as? Int, Self.photos)
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0 != "index.json" }
        XCTAssertEqual(files.filter { !$0.hasPrefix(".") }.count, Self.photos)
        XCTAssertEqual(files.filter { $0.hasPrefix(".") && $0 != ".photocluster-owner.json" }, [], "no temporary file is left")
        XCTAssertEqual(try psql("SELECT count(*), count(DISTINCT idx) FROM photos WHERE state = 'done'"), ["\(Self.photos)|\(Self.photos)"])
    }

    func testTheStandbyTakesOverFromAKilledLeaderAndTheJobEndsAsIfNothingHappened() throws {
        let (leader, standby, submit) = try startCluster()
        XCTAssertFalse(standby.stderrSoFar.contains("workers connect to"), "the leader lost its lease before the fault: \(logs())")
        let killed = Date()
        leader.process.killAndReap()
        XCTAssertTrue(eventually(timeout: 30) { standby.stderrSoFar.contains("workers connect to") }, standby.stderrSoFar)
        let takeover = Date().timeIntervalSince(killed)
        print("standby leads \(String(format: "%.1f", takeover)) s after the leader's SIGKILL (lease \(Self.leaseSeconds) s)")
        XCTAssertEqual(try psql("SELECT token FROM leadership"), ["2"])
        try checkEveryPhotoWrittenOnce(submit)
    }

    func testALeaderFrozenPastItsLeaseWakesToWriteNothingAndStepsDown() throws {
        let (leader, standby, submit) = try startCluster()
        XCTAssertFalse(standby.stderrSoFar.contains("workers connect to"), "the leader lost its lease before the fault: \(logs())")
        leader.process.send(signal: SIGSTOP)
        XCTAssertTrue(eventually(timeout: 30) { standby.stderrSoFar.contains("workers connect to") }, standby.stderrSoFar)
        XCTAssertTrue(eventually(timeout: 60) { self.outputs().count >= 1000 }, "the new leader goes on with the job: \(logs())")
        // What the old leader had written, and what the new one has so far: waking, the old one
        // must change none of it (nor write anything else: checked at the end).
        let settled = Set(try psql("SELECT idx, state, output_path, settled_seq FROM photos"))
        let files = try inodes()
        leader.process.send(signal: SIGCONT)
        XCTAssertTrue(leader.process.waitForExit(timeout: 20), "the woken leader steps down: \(leader.stderrSoFar.suffix(3000))")
        XCTAssertEqual(leader.process.status, 3, "it exits for its supervisor to start it again as a standby")
        XCTAssertTrue(leader.stderrSoFar.contains("stepped down: "), leader.stderrSoFar.suffix(3000).description)
        try checkEveryPhotoWrittenOnce(submit)
        XCTAssertTrue(settled.isSubset(of: Set(try psql("SELECT idx, state, output_path, settled_seq FROM photos"))), "no settled photo was written again")
        let after = try inodes()
        for (name, inode) in files { XCTAssertEqual(after[name], inode, "\(name) was replaced") }
        XCTAssertEqual(try psql("SELECT token, holder LIKE '%pid \(standby.process.pid)' FROM leadership"), ["2|t"], "the lease stayed with the new leader")
    }

    /// The last lines of every process, for a failure's message.
    private func logs() -> String {
        processes.map { "\($0.arguments.prefix(2).joined(separator: " ")):\n\($0.stderrSoFar.suffix(1500))" }.joined(separator: "\n")
    }

    private func inodes() throws -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        for name in outputs() {
            let attributes = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent(name).path)
            result[name] = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
        }
        return result
    }
}
