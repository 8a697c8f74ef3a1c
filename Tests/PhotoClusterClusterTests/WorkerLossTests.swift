import Foundation
import PhotoClusterClient
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling

/// Photos held by a worker that died: each becomes a suspect, goes behind the photos that never
/// hurt anyone, runs alone from then on and not on a worker it was lost on while another can take
/// it; only a loss where it was the worker's only photo is charged, and after `maxWorkerLosses`
/// charges it fails; a worker that only fell silent and comes back as the same process is
/// forgiven. Workers are scripted, so each death comes exactly when the test says.
final class WorkerLossTests: XCTestCase {
    private var cluster: ScriptedWorkerCluster?
    private var state: URL?
    private let url = "http://127.0.0.1:9/photo.jpg"

    override func tearDown() {
        cluster?.stop()
        if let state { try? FileManager.default.removeItem(at: state) }
    }

    private func start(maxWorkerLosses: UInt32 = 3, heartbeat: (TimeInterval, Int) = (1, 3), state: URL? = nil) throws -> ScriptedWorkerCluster {
        let cluster = try ScriptedWorkerCluster(name: "worker-loss", heartbeat: heartbeat, maxWorkerLosses: maxWorkerLosses, state: state)
        self.cluster = cluster
        return cluster
    }

    private func photos(_ count: Int) -> [(name: String, url: String)] {
        (0..<count).map { ("p\($0)", "\(url)?\($0)") }
    }

    private func losses(of job: String, in cluster: ScriptedWorkerCluster) -> [UInt32: WorkerLosses] {
        cluster.coordinator.onLoop { cluster.coordinator.jobs[job]?.workerLosses ?? [:] }
    }

    func testAPhotoChargedTheLimitOfLossesFailsAndItsBystanderFinishes() async throws {
        let cluster = try start(maxWorkerLosses: 2)
        let worker = try cluster.connect("only")
        try worker.grant(1)
        let job = try await cluster.client.submit(try ClusterHarness.submit(photos(2), out: cluster.out, format: .jpeg))
        let culprit = try XCTUnwrap(worker.nextAssignment())

        // Its worker's only photo: charged, and it goes back alone (no other worker to take it).
        try worker.restart()
        try worker.grant(2)
        let again = try XCTUnwrap(worker.nextAssignment(timeout: 5))
        XCTAssertEqual(again.photoIndex, culprit.photoIndex, "the suspect waits behind the other photo, but a worker is kept for it")
        XCTAssertEqual(losses(of: job.id, in: cluster)[culprit.photoIndex]?.count, 1)
        // Checked on the coordinator's state, not by waiting for an assignment that must not
        // come: the credit's whole dispatch sent `again`, and nothing beside it.
        let holding = await cluster.coordinator.onLoop { cluster.coordinator.workers["only"]?.inFlight.count ?? 0 }
        XCTAssertEqual(holding, 1, "a suspect runs alone")
        try worker.restart()
        try worker.grant(2)
        // Charged twice: it failed; the other photo runs and finishes.
        let bystander = try XCTUnwrap(worker.nextAssignment(timeout: 5))
        XCTAssertNotEqual(bystander.photoIndex, culprit.photoIndex)
        try worker.sendResult(of: bystander, encoded: try sample())

        let summary = try await finished(job.id, in: cluster)
        let failed = try XCTUnwrap(summary?.photos.first { $0.index == culprit.photoIndex })
        XCTAssertEqual(failed.state, .failed)
        XCTAssertEqual(failed.stage, "worker")
        XCTAssertEqual(failed.reason, "worker lost 2 times while processing this photo; it may crash workers")
        XCTAssertEqual(summary?.progress.succeeded, 1)
        let status = try await cluster.client.status()
        XCTAssertEqual(status.recentFailures.first?.reason, failed.reason, "operators see it among the recent failures")
    }

    func testAWorkerThatFellSilentAndComesBackAsTheSameProcessIsForgiven() async throws {
        let cluster = try start(heartbeat: (0.1, 3))
        let worker = try cluster.connect("paused")
        try worker.grant(1)
        let job = try await cluster.client.submit(try ClusterHarness.submit(photos(1), out: cluster.out, format: .jpeg))
        let graph = try XCTUnwrap(worker.nextAssignment())
        XCTAssertTrue(eventually(timeout: 5) { self.losses(of: job.id, in: cluster)[0]?.count == 1 }, "a silent worker's photo was not charged")

        try worker.hello(inFlight: [(job.id, graph.photoIndex)])
        XCTAssertTrue(eventually(timeout: 5) { self.losses(of: job.id, in: cluster).isEmpty }, "the worker came back, yet its photo stays charged")
    }

    func testLossesSurviveACoordinatorRestart() async throws {
        let state = Repository.temporaryDirectory("worker-loss-state")
        self.state = state
        var cluster = try start(state: state)
        let worker = try cluster.connect("w")
        try worker.grant(1)
        let job = try await cluster.client.submit(try ClusterHarness.submit(photos(2), out: cluster.out, format: .jpeg))
        XCTAssertNotNil(worker.nextAssignment())
        try worker.restart()
        XCTAssertTrue(eventually { self.losses(of: job.id, in: cluster).count == 1 })
        cluster.stop()

        cluster = try start(state: state)
        XCTAssertEqual(losses(of: job.id, in: cluster), [0: WorkerLosses(count: 1, workers: ["w"])], "a restart gave the photo a fresh start")
    }

    /// The job's summary once it has finished; nil if it has not within `timeout`.
    private func finished(_ job: String, in cluster: ScriptedWorkerCluster, timeout: TimeInterval = 10) async throws -> JobSummary? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let summary = try await cluster.client.status(job: job).jobs.first, summary.phase == .didFinish { return summary }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        return nil
    }

    private func sample() throws -> Data {
        try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg"))
    }
}
