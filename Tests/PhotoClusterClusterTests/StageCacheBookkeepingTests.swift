import Foundation
import PhotoClusterClient
import PhotoClusterCoordinator
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

/// The coordinator's record of which worker holds a photo's intermediate results lasts only
/// until the photo settles, and names one worker at a time: a stale entry is never removed and
/// keeps the affinity scan running for that worker on every dispatch.
final class StageCacheBookkeepingTests: XCTestCase {
    private var cluster: ScriptedWorkerCluster!
    private var coordinator: CoordinatorNode { cluster.coordinator }
    private var client: ClusterClient { cluster.client }
    private var out: URL { cluster.out }

    override func setUpWithError() throws {
        cluster = try ScriptedWorkerCluster(name: "stage-cache-bookkeeping")
    }

    override func tearDown() {
        cluster?.stop()
    }

    /// A worker whose filter finished just as the photo was cancelled reports that stage after
    /// the cancel settled the photo.
    func testProgressArrivingAfterAPhotoSettledIsNotRecordedAsCached() async throws {
        let worker = try cluster.connect("late")
        try worker.grant(1)
        let first = try await client.submit(try ClusterHarness.submit([("photo", "http://127.0.0.1:9/one.jpg")], out: out))
        let graph = try XCTUnwrap(worker.nextAssignment(), "the photo was assigned")
        try worker.reportStage(.download, of: graph)
        XCTAssertTrue(eventually { self.cached(on: "late") == 1 }, "the downloaded photo is recorded as held by its worker")

        try await client.cancel(job: first.id)
        XCTAssertTrue(eventually { self.cached(on: "late") == 0 }, "a cancelled photo is no longer held")
        try worker.reportStage(.filter, of: graph)
        // The coordinator reads this worker's messages in order: once the next job's photo is
        // assigned, the late report has been handled.
        try worker.grant(1)
        _ = try await client.submit(try ClusterHarness.submit([("photo", "http://127.0.0.1:9/two.jpg")], out: out))
        XCTAssertNotNil(worker.nextAssignment(), "the second job's photo was assigned")
        XCTAssertEqual(cached(on: "late"), 0, "a late report put a settled photo back among the worker's cached photos")
    }

    /// A worker that lost touch and came back reports a stage of the attempt it was sent before,
    /// while another worker holds the photo's next attempt: the photo's results are recorded on
    /// the reporter alone, and forgotten when it ends.
    func testAPhotoRecordedOnAnotherWorkerLeavesTheFirstWorkersCache() async throws {
        let first = try cluster.connect("first")
        let second = try cluster.connect("second")
        XCTAssertTrue(eventually { self.coordinator.workerSnapshot().count == 2 })
        try second.grant(1)
        let job = try await client.submit(try ClusterHarness.submit([("photo", "http://127.0.0.1:9/photo.jpg")], out: out, format: .jpeg))
        let earlier = try XCTUnwrap(second.nextAssignment(), "the photo was assigned to the worker with credit")
        // It comes back holding nothing: its photo goes back to the queue, and to the other worker.
        try second.send(.hello(.with {
            $0.protocolVersion = UInt32(Photocluster_V1_ProtocolVersion.current.rawValue)
            $0.workerID = "second"
            $0.concurrency = 1
            $0.filters = [.with { $0.name = "sepia" }]
        }))
        try first.grant(1)
        let graph = try XCTUnwrap(first.nextAssignment(), "the photo was assigned again")
        XCTAssertEqual(graph.attempt, earlier.attempt + 1)
        try first.reportStage(.download, of: graph)
        XCTAssertTrue(eventually { self.cached(on: "first") == 1 })

        try second.reportStage(.decode, of: earlier)
        XCTAssertTrue(eventually { self.cached(on: "second") == 1 }, "the latest report names the holder")
        XCTAssertEqual(cached(on: "first"), 0, "the photo is still recorded on the worker that held it before")

        let sample = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg"))
        try first.sendResult(of: graph, encoded: sample)
        var finished = false
        for await event in job.events { if case .finished = event.body { finished = true } }
        XCTAssertTrue(finished, "the job finished")
        XCTAssertEqual(coordinator.workerSnapshot().map(\.cached), [0, 0], "a finished photo is held by no worker")
    }

    private func cached(on worker: String) -> Int? {
        coordinator.workerSnapshot().first { $0.id == worker }?.cached
    }
}
