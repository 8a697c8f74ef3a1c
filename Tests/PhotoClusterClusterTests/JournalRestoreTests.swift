import Foundation
import PhotoClusterClient
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

@testable import PhotoClusterCoordinator

/// A coordinator restarted on its journal goes on where it stopped: with each job's control
/// epoch and suspension, and finishing a job whose photos had all settled before the stop.
final class JournalRestoreTests: XCTestCase {
    private var context: ZMQContext!
    private var coordinator: CoordinatorNode?
    private var client: ClusterClient?
    private var workers: [ScriptedWorker] = []
    private var state: URL!
    private var out: URL!

    override func setUpWithError() throws {
        context = try ZMQContext()
        state = Repository.temporaryDirectory("journal-restore-state")
        out = Repository.temporaryDirectory("journal-restore-out")
    }

    override func tearDown() {
        stop()
        context?.terminate()
        for directory in [state, out].compactMap({ $0 }) { try? FileManager.default.removeItem(at: directory) }
    }

    private func start() throws -> ClusterClient {
        let coordinator = CoordinatorNode(
            configuration: CoordinatorConfiguration(
                workerEndpoint: "tcp://127.0.0.1:*", clientEndpoint: "tcp://127.0.0.1:*", stateDirectory: state),
            context: context)
        try coordinator.start()
        let client = try ClusterClient(endpoint: coordinator.boundClientEndpoint, context: context)
        (self.coordinator, self.client) = (coordinator, client)
        return client
    }

    private func stop() {
        for worker in workers { worker.close() }
        workers = []
        client?.close()
        coordinator?.stop()
        (client, coordinator) = (nil, nil)
    }

    /// Workers that keep running ignore graphs and control older than the newest epoch they
    /// saw for a job, so a restarted coordinator that began again at epoch 1 had every graph it
    /// sent handed back, for ever. A job the client suspended also stays suspended.
    func testARestartKeepsEachJobsEpochAndSuspension() async throws {
        let client = try start()
        var submit = try ClusterHarness.submit([("a", "http://127.0.0.1:9/a.jpg"), ("b", "http://127.0.0.1:9/b.jpg")], out: out)
        submit.viewportMode = true
        submit.viewport = .with { $0.visibleStart = 0; $0.visibleEnd = 0 }
        let job = try await client.submit(submit)
        _ = try await client.setViewport(job: job.id, visible: 1...1)
        _ = try await client.setViewport(job: job.id, visible: 0...1)
        try await client.suspend(job: job.id)
        let beforeReply = try await client.status(job: job.id)
        let before = try XCTUnwrap(beforeReply.jobs.first)
        XCTAssertGreaterThanOrEqual(before.viewport.epoch, 4)
        XCTAssertTrue(before.suspended)
        stop()

        let restarted = try start()
        let afterReply = try await restarted.status(job: job.id)
        let after = try XCTUnwrap(afterReply.jobs.first)
        // One past: the stopped coordinator may have sent the next epoch without journaling it.
        XCTAssertEqual(after.viewport.epoch, before.viewport.epoch + 1, "the restarted coordinator began the job's epochs again")
        XCTAssertTrue(after.suspended, "the job the client suspended runs again after a restart")
    }

    /// Stopped after a job's last photo was recorded and before the job was, the coordinator
    /// finishes that job when it starts again (no photo will come to finish it).
    func testAJobWhosePhotosAllSettledBeforeTheStopFinishesOnRestart() async throws {
        let client = try start()
        let worker = try ScriptedWorker(id: "w", context: context, coordinator: coordinator!)
        workers.append(worker)
        try worker.grant(1)
        let job = try await client.submit(try ClusterHarness.submit([("a", "http://127.0.0.1:9/a.jpg")], out: out, format: .jpeg))
        let graph = try XCTUnwrap(worker.nextAssignment())
        try worker.sendResult(of: graph, encoded: try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg")))
        for await _ in job.events {}
        stop()
        try SQLiteDatabase(path: state.appendingPathComponent("journal.sqlite").path).execute(
            "UPDATE jobs SET phase = \(Photocluster_V1_JobPhase.inProgress.rawValue), finished_seq = NULL")

        let restarted = try start()
        var phase: Photocluster_V1_JobPhase?
        for _ in 0..<100 {
            phase = try await restarted.status(job: job.id).jobs.first?.phase
            if phase == .didFinish { break }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        XCTAssertEqual(phase, .didFinish, "a restored job whose every photo had settled never finished")
    }
}
