import Foundation
import LoopbackHTTP
import PhotoClusterClient
import PhotoClusterTestSupport
import PhotoClusterTransport
import PhotoClusterWorker
import XCTest

@testable import PhotoClusterCoordinator

/// A long-lived coordinator keeps its open jobs and the last finished ones, and forgets older
/// finished jobs in memory and in its journal; their outputs and index.json stay.
final class FinishedJobRetentionTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var context: ZMQContext!
    private var coordinator: CoordinatorNode?
    private var worker: WorkerNode?
    private var client: ClusterClient?
    private var state: URL!
    private var out: URL!

    override func setUpWithError() throws {
        // ~1.5 s for a slow photo: its job stays open while quick jobs come and go.
        server = try ClusterHarness.clockServer(slowChunk: 300, every: 0.05)
        context = try ZMQContext()
        state = Repository.temporaryDirectory("retention-state")
        out = Repository.temporaryDirectory("retention-out")
    }

    override func tearDown() {
        stopCluster()
        context?.terminate()
        server?.stop()
        for directory in [state, out].compactMap({ $0 }) { try? FileManager.default.removeItem(at: directory) }
    }

    /// A coordinator journaling under `state` and one worker, over inproc endpoints of their own.
    private func startCluster(keeping kept: Int) throws -> (CoordinatorNode, ClusterClient) {
        let name = "retention-\(UUID().uuidString.prefix(8))"
        let coordinator = CoordinatorNode(
            configuration: CoordinatorConfiguration(
                workerEndpoint: "inproc://\(name)-workers", clientEndpoint: "inproc://\(name)-clients",
                heartbeatInterval: 0.2, stateDirectory: state, finishedJobsKept: kept),
            context: context)
        try coordinator.start()
        let worker = WorkerNode(
            configuration: WorkerConfiguration(
                coordinatorEndpoint: "inproc://\(name)-workers", workerID: "w", engine: .init(concurrency: 2).allowingLoopback(), heartbeatInterval: 0.2),
            context: context)
        try worker.start()
        let client = try ClusterClient(endpoint: coordinator.boundClientEndpoint, context: context)
        (self.coordinator, self.worker, self.client) = (coordinator, worker, client)
        return (coordinator, client)
    }

    private func stopCluster() {
        client?.close()
        worker?.stop()
        coordinator?.stop()
        (client, worker, coordinator) = (nil, nil, nil)
    }

    private func job(_ path: String, label: String) throws -> SubmitJob {
        try ClusterHarness.submit([("photo", "\(server.baseURL)\(path)")], out: out.appendingPathComponent(label))
    }

    private func heldJobs(_ coordinator: CoordinatorNode) async -> [String] {
        await coordinator.status().jobs.map(\.jobID)
    }

    func testTheLastFinishedJobsAreKeptAndOlderOnesForgottenHereAndInTheJournal() async throws {
        let (coordinator, client) = try startCluster(keeping: 2)
        let slow = try await client.submit(try job("/slow/a", label: "slow"))
        var quick: [String] = []
        for label in ["b", "c", "d"] {
            let (submitted, summary, _) = try await ClusterHarness.run(try job("/fast/\(label)", label: label), on: client)
            XCTAssertEqual(summary?.progress.succeeded, 1, "job \(label)")
            quick.append(submitted.id)
        }
        // Three finished, two kept: the first quick job is gone; the open slow job stays.
        let whileOpen = await heldJobs(coordinator)
        XCTAssertEqual(Set(whileOpen), [slow.id, quick[1], quick[2]], "held while the slow job runs: \(whileOpen)")
        for await _ in slow.events {}
        // The slow job finished last, so it is kept and the second quick job goes.
        let afterwards = await heldJobs(coordinator)
        XCTAssertEqual(afterwards, [slow.id, quick[2]])

        do {
            _ = try await client.watch(quick[0])
            XCTFail("watching a forgotten job must be refused")
        } catch let error as ClusterClientError {
            XCTAssertTrue(error.message.contains("no job \(quick[0])"), error.message)
            XCTAssertTrue(error.message.contains("index.json"), "the refusal says where the outcome is: \(error.message)")
        }
        let index = out.appendingPathComponent("b/index.json")
        XCTAssertTrue(FileManager.default.fileExists(atPath: index.path), "a forgotten job's index.json stays")

        // A coordinator restarted on the journal finds only the kept jobs: the others' rows are gone
        // (had they stayed, the two most recently submitted, c and d, would be the ones kept).
        stopCluster()
        let (restarted, _) = try startCluster(keeping: 2)
        let restored = await heldJobs(restarted)
        XCTAssertEqual(Set(restored), [slow.id, quick[2]])
    }

    func testARestartWithFewerKeptForgetsTheOldestFinishedJobs() async throws {
        let (_, client) = try startCluster(keeping: 5)
        var ids: [String] = []
        for label in ["e", "f", "g"] {
            ids.append(try await ClusterHarness.run(try job("/fast/\(label)", label: label), on: client).job.id)
        }
        stopCluster()
        let (restarted, _) = try startCluster(keeping: 1)
        let restored = await heldJobs(restarted)
        XCTAssertEqual(restored, [ids[2]], "restored jobs beyond the new limit are forgotten at start, oldest first")
    }

    /// The journal records the order jobs finished in: a job submitted first and finished last
    /// is the one a restart keeps.
    func testARestartKeepsTheJobsThatFinishedLastNotThoseSubmittedLast() async throws {
        let (_, client) = try startCluster(keeping: 5)
        let slow = try await client.submit(try job("/slow/h", label: "h"))
        let quick = try await ClusterHarness.run(try job("/fast/i", label: "i"), on: client)
        XCTAssertEqual(quick.summary?.progress.succeeded, 1)
        for await _ in slow.events {}
        stopCluster()
        let (restarted, _) = try startCluster(keeping: 1)
        let restored = await heldJobs(restarted)
        XCTAssertEqual(restored, [slow.id], "the job that finished last is kept (\(quick.job.id) finished first)")
    }

    /// A journal written before jobs recorded their finish order opens; its finished jobs count
    /// as finished before any job that finishes now.
    func testAJournalWithoutFinishOrderOpensAndItsJobsCountAsFinishedFirst() async throws {
        var ids: [String] = []
        let (_, first) = try startCluster(keeping: 5)
        for label in ["j", "k"] { ids.append(try await ClusterHarness.run(try job("/fast/\(label)", label: label), on: first).job.id) }
        stopCluster()
        try SQLiteDatabase(path: state.appendingPathComponent("journal.sqlite").path).execute("ALTER TABLE jobs DROP COLUMN finished_seq")

        let (_, second) = try startCluster(keeping: 5)
        let added = try await ClusterHarness.run(try job("/fast/l", label: "l"), on: second)
        XCTAssertEqual(added.summary?.progress.succeeded, 1, "a job runs and finishes on the older journal")
        ids.append(added.job.id)
        stopCluster()
        let (restarted, _) = try startCluster(keeping: 2)
        let restored = await heldJobs(restarted)
        XCTAssertEqual(restored, [ids[1], ids[2]], "the older journal's first job is forgotten first")
    }

    /// A journal written when the submit message lay in the job's own row opens with its jobs.
    func testAJournalWithTheSubmitInTheJobsRowOpensWithItsJobs() async throws {
        var ids: [String] = []
        let (_, first) = try startCluster(keeping: 5)
        for label in ["j", "k"] { ids.append(try await ClusterHarness.run(try job("/fast/\(label)", label: label), on: first).job.id) }
        stopCluster()
        let journal = try SQLiteDatabase(path: state.appendingPathComponent("journal.sqlite").path)
        try journal.execute("UPDATE jobs SET submit = (SELECT submit FROM submits WHERE submits.job_id = jobs.id)")
        try journal.execute("DROP TABLE submits")

        let (restarted, _) = try startCluster(keeping: 5)
        let restored = await restarted.status().jobs
        XCTAssertEqual(Set(restored.map(\.jobID)), Set(ids), "the older journal's jobs are restored")
        XCTAssertEqual(restored.map(\.progress.succeeded), [1, 1], "with their photos, read from the submit in their rows")
    }
}
