import Foundation
import PhotoClusterCore
import PhotoClusterProto
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling

/// A coordinator that restored a job from the journal sends its photos again under the attempt
/// numbers the journal gives (a photo's attempts are journaled when it settles), which may be the
/// numbers the coordinator before it sent the same worker. The outcome of that earlier graph,
/// sent behind the worker's hello, names the earlier epoch: it is not taken for the outcome of
/// the graph the worker now runs, whose slot it would free while the graph still holds it.
final class EarlierCoordinatorReportTests: XCTestCase {
    private let photo = PhotoRef(job: "job1", index: 0)

    /// A coordinator that restored job1 (journaled at epoch 3) and sent its photo to `w` again.
    private func restoredAndSentAgain() -> CoreHarness {
        let core = CoreHarness()
        var submit = Photocluster_V1_SubmitJob()
        submit.photos = [.with { $0.name = "p0"; $0.url = "http://photos.test/job1/0.jpg" }]
        var journaled = JournaledJob(
            id: "job1", submit: submit, outputDirectory: URL(fileURLWithPath: "/out/job1"), createdAt: Date(timeIntervalSince1970: 0),
            phase: .inProgress)
        journaled.epoch = 3
        core.handle(.jobsRestored([Job.restore(journaled, place: nil, now: Date(timeIntervalSince1970: 0))], finishOrder: []))
        core.hello("w")
        XCTAssertEqual(CoreHarness.graphs(in: core.credit("w", 1)).flatMap(\.photos), ["job1/0@1"], "attempt 1, as the one before sent it")
        XCTAssertEqual(core.core.jobs["job1"]?.epoch, 4)
        return core
    }

    func testAResultOfTheEarlierCoordinatorsGraphNeitherSettlesNorFreesTheSlot() {
        let core = restoredAndSentAgain()
        // Its progress is not the new graph's either: the photo is not marked downloaded.
        core.from("w", .progress(.with { $0.jobID = "job1"; $0.photoIndex = 0; $0.attempt = 1; $0.graphEpoch = 3; $0.stage = .download }))
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.state, .new)
        core.from("w", .progress(.with { $0.jobID = "job1"; $0.photoIndex = 0; $0.attempt = 1; $0.graphEpoch = 4; $0.stage = .download }))
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.state, .downloaded)

        let rejected = core.result("w", photo, attempt: 1, graphEpoch: 3, credit: 1)
        XCTAssertTrue(rejected.contains {
            if case .rejected(worker: "w", _, what: "result", reason: "not_sent", _, _, _) = $0 { return true } else { return false }
        })
        XCTAssertEqual(core.core.workers["w"]?.inFlight, [photo], "the graph sent again still runs there")
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.isSettled, false)
        XCTAssertTrue(core.core.attemptsSent.wasSent(photo, attempt: 1, epoch: 4, to: "w"), "its own outcome is still awaited")

        XCTAssertEqual(CoreHarness.writes(in: core.result("w", photo, attempt: 1, graphEpoch: 4)), ["job1/[0] from w"])
        XCTAssertEqual(core.core.workers["w"]?.inFlight, [])
    }

    /// Workers of an older build say no epoch: their outcomes are believed by the attempt, as
    /// before.
    func testAResultNamingNoEpochIsBelievedByItsAttempt() {
        let core = restoredAndSentAgain()
        XCTAssertEqual(CoreHarness.writes(in: core.result("w", photo, attempt: 1, graphEpoch: 0)), ["job1/[0] from w"])
        XCTAssertEqual(core.core.workers["w"]?.inFlight, [])
    }
}
