import Foundation
import PhotoClusterClient
import PhotoClusterCoordinator
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

/// Every photo of a job ends, whatever order workers' reports arrive in: a photo is never left
/// waiting for a worker, a leader or a retry that cannot come.
final class PhotoLifecycleTests: XCTestCase {
    private var cluster: ScriptedWorkerCluster!
    private var client: ClusterClient { cluster.client }
    private var out: URL { cluster.out }
    private let url = "http://127.0.0.1:9/photo.jpg"

    override func setUpWithError() throws {
        cluster = try ScriptedWorkerCluster(name: "photo-lifecycle", retryBackoff: 0.05)
    }

    override func tearDown() {
        cluster?.stop()
    }

    /// Scrolled away and back, a photo goes back to the worker that had it, as a second attempt,
    /// while the first is still ending there. The first attempt's late "cancelled" must not make
    /// the coordinator forget that the worker holds the second: if that worker is then lost, the
    /// photo must be sent to another.
    func testAnEarlierAttemptsCancelLeavesTheCurrentAttemptOnItsWorker() async throws {
        let first = try cluster.connect("first")
        try first.grant(1)
        var submit = try ClusterHarness.submit([("a", url), ("b", url + "?b"), ("c", url + "?c")], out: out)
        submit.viewportMode = true
        submit.viewport = .with { $0.visibleStart = 0; $0.visibleEnd = 0 }
        let job = try await client.submit(submit)
        let attempt1 = try XCTUnwrap(first.nextAssignment(), "the visible photo was assigned")
        XCTAssertEqual(attempt1.attempt, 1)

        _ = try await client.setViewport(job: job.id, visible: 2...2)
        _ = try await client.setViewport(job: job.id, visible: 0...0)
        try first.grant(1)
        let attempt2 = try XCTUnwrap(first.nextAssignment(timeout: 10), "the photo back in view was assigned again")
        XCTAssertEqual(attempt2.photoIndex, 0)
        XCTAssertEqual(attempt2.attempt, 2)

        try first.send(.cancelled(.with {
            $0.jobID = job.id
            $0.photoIndex = 0
            $0.attempt = 1
            $0.lastFinished = .unspecified
        }))
        let second = try cluster.connect("second")
        try first.send(.goodbye(.with { $0.handedBack = [] }))
        try second.grant(1)
        let attempt3 = second.nextAssignment(timeout: 10)
        XCTAssertEqual(attempt3?.photoIndex, 0, "the photo held by the lost worker was not sent to the other")
        XCTAssertEqual(attempt3?.attempt, 3)
    }

    /// Two entries with the same URL and filters make one photo and a copy. When the client
    /// cancels the one that runs, the other runs on its own instead of waiting for ever.
    func testAFollowerRunsWhenItsLeaderIsCancelledByName() async throws {
        let worker = try cluster.connect("w")
        try worker.grant(1)
        let job = try await client.submit(try ClusterHarness.submit([("a", url), ("b", url)], out: out, format: .jpeg))
        let leader = try XCTUnwrap(worker.nextAssignment(), "one of the two was assigned")
        XCTAssertEqual(leader.photoIndex, 0)

        try await client.cancel(job: job.id, photos: ["a"])
        try worker.grant(1)
        let follower = try XCTUnwrap(worker.nextAssignment(timeout: 10), "the copy of a cancelled photo was never run")
        XCTAssertEqual(follower.photoIndex, 1)
        try worker.sendResult(of: follower, encoded: try sample())
        let summary = try await finalSummary(of: job)
        XCTAssertEqual(summary?.phase, .didFinish)
        XCTAssertEqual(summary?.progress.succeeded, 1)
        XCTAssertEqual(summary?.progress.cancelled, 1)
    }

    /// In a viewport, a copy in view runs on its own when the photo it copies is out of view.
    func testAVisibleFollowerOfAPhotoOutOfViewRuns() async throws {
        let worker = try cluster.connect("w")
        try worker.grant(1)
        var submit = try ClusterHarness.submit([("a", url), ("b", url)], out: out)
        submit.viewportMode = true
        submit.viewport = .with { $0.visibleStart = 1; $0.visibleEnd = 1 }
        _ = try await client.submit(submit)
        let graph = worker.nextAssignment(timeout: 10)
        XCTAssertEqual(graph?.photoIndex, 1, "the visible copy of a photo out of view was never run")
    }

    /// A worker that says hello again (it lost touch for a moment) is the only one with the
    /// job's filter; the other connected worker has none. Its photos wait for it: none fails for
    /// want of a worker that never left.
    func testAWorkerRegisteringAgainKeepsPhotosOnlyItCanRun() async throws {
        let sepia = try cluster.connect("sepia")
        _ = try cluster.connect("plain", filters: [])
        XCTAssertTrue(eventually { self.cluster.coordinator.workerSnapshot().count == 2 })
        try sepia.grant(1)
        let job = try await client.submit(try ClusterHarness.submit([("a", url), ("b", url + "?b"), ("c", url + "?c")], out: out))
        let held = try XCTUnwrap(sepia.nextAssignment())

        try sepia.send(.hello(.with { hello in
            hello.protocolVersion = UInt32(Photocluster_V1_ProtocolVersion.current.rawValue)
            hello.workerID = "sepia"
            hello.concurrency = 1
            hello.filters = [.with { $0.name = "sepia" }]
            hello.inFlight = [.with { $0.jobID = job.id; $0.photoIndex = held.photoIndex }]
        }))
        try sepia.grant(1)
        let next = try XCTUnwrap(sepia.nextAssignment(timeout: 10), "no photo went to the worker that came back")
        XCTAssertNotEqual(next.photoIndex, held.photoIndex, "the photo it still holds stays with it")
        let status = try await client.status(job: job.id)
        XCTAssertEqual(status.jobs.first?.progress.failed, 0, "photos failed while their only capable worker registered again")
    }

    /// Sent again twice for reasons that were not failures (its workers were lost), a photo still
    /// gets every retry of its budget when it then fails.
    func testAttemptsThatDidNotFailLeaveTheRetryBudgetWhole() async throws {
        let job = try await client.submit(try ClusterHarness.submit([("a", url)], out: out))
        for name in ["lost-1", "lost-2"] {
            let worker = try cluster.connect(name)
            try worker.grant(1)
            XCTAssertNotNil(worker.nextAssignment(timeout: 10), "\(name) got the photo")
            try worker.send(.goodbye(.with { $0.handedBack = [] }))
        }
        let worker = try cluster.connect("last")
        try worker.grant(2)
        let third = try XCTUnwrap(worker.nextAssignment(timeout: 10))
        XCTAssertEqual(third.attempt, 3)
        try worker.send(.failure(.with {
            $0.jobID = job.id
            $0.photoIndex = 0
            $0.attempt = third.attempt
            $0.stage = .download
            $0.stageName = "download"
            $0.reason = "HTTP 503 Service Unavailable"
            $0.transient = true
        }))
        let retry = worker.nextAssignment(timeout: 10)
        XCTAssertEqual(retry?.attempt, 4, "the first failure of a photo sent three times used up its retries")
    }

    private func sample() throws -> Data {
        try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg"))
    }

    private func finalSummary(of job: SubmittedJob) async throws -> JobSummary? {
        var summary: JobSummary?
        for await event in job.events { if case .finished(let finished) = event.body { summary = finished } }
        return summary
    }
}
