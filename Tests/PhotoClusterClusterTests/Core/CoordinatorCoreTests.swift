import Foundation
import PhotoClusterCore
import PhotoClusterProto
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling

/// The scheduling core, event by event, with exact actions and a virtual clock (`CoreHarness`).
final class CoordinatorCoreTests: XCTestCase {
    private let a = PhotoRef(job: "job1", index: 0)

    func testAWorkerIsWelcomedAndItsCreditBringsQueuedPhotosInOneNumberedBatch() {
        let core = CoreHarness()
        XCTAssertEqual(CoreHarness.messages(in: core.hello("w")), ["w: welcome"])
        core.submit(photos: 3)
        let sent = CoreHarness.graphs(in: core.credit("w", 2))
        XCTAssertEqual(sent.map(\.worker), ["w"])
        XCTAssertEqual(sent.map(\.sequence), [1])
        // In viewport order: a batch job's photos from its middle outwards.
        XCTAssertEqual(sent.first?.photos, ["job1/1@1", "job1/0@1"])
        XCTAssertEqual(CoreHarness.graphs(in: core.credit("w", 1)).map(\.sequence), [2], "the next batch has the next number")
    }

    func testCreditBeyondTheWindowOfTheAnnouncedConcurrencyIsNotBelieved() {
        let core = CoreHarness()
        core.hello("w", concurrency: 1)
        core.submit(photos: 10)
        let sent = CoreHarness.graphs(in: core.credit("w", 1000))
        XCTAssertEqual(sent.first?.photos.count, CreditWindow.graphs(concurrency: 1))
    }

    /// Moved down from the socket test: the worker accounted for the assignment and holds
    /// nothing, in two heartbeats: the photo is sent again with the credit it spent, charged.
    func testAnAssignmentTheWorkerNeverGotIsSentAgainAfterTwoHeartbeats() {
        let core = CoreHarness()
        core.hello("w")
        core.submit(photos: 1)
        XCTAssertEqual(CoreHarness.graphs(in: core.credit("w", 1)).first?.photos, ["job1/0@1"])
        let first = core.heartbeat("w", sequence: 1, holding: [])
        XCTAssertTrue(CoreHarness.graphs(in: first).isEmpty, "one heartbeat is not enough: an outcome may be on its way behind it")
        let second = core.heartbeat("w", sequence: 1, holding: [])
        XCTAssertTrue(CoreHarness.graphs(in: second).isEmpty, "sent again only after its back-off")
        XCTAssertEqual(core.core.workers["w"]?.credits, 1, "the credit it spent came back")
        core.advance(1)
        XCTAssertEqual(CoreHarness.graphs(in: core.handle(.retryTick)).first?.photos, ["job1/0@2"], "the lost assignment was sent again, charged")
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.failures, 1)
    }

    func testAnAssignmentOnItsWayOrHeldIsLeftAlone() {
        let core = CoreHarness()
        core.hello("w")
        core.submit(photos: 1)
        core.credit("w", 1)
        for _ in 0..<3 { XCTAssertTrue(CoreHarness.graphs(in: core.heartbeat("w", sequence: 0 + 0, holding: [])).isEmpty) }
        for _ in 0..<3 { XCTAssertTrue(CoreHarness.graphs(in: core.heartbeat("w", sequence: 1, holding: [a])).isEmpty) }
        XCTAssertEqual(core.core.workers["w"]?.inFlight, [a], "still in flight on the worker")
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.failures, 0)
    }

    /// Provenance: a result is believed only from the worker its attempt was sent to.
    func testAResultFromAWorkerNotSentTheAttemptIsRejectedAndNothingIsWritten() {
        let core = CoreHarness()
        core.hello("sent")
        core.hello("other")
        core.submit(photos: 1)
        core.credit("sent", 1)
        let forged = core.result("other", a, attempt: 1)
        XCTAssertTrue(CoreHarness.writes(in: forged).isEmpty)
        XCTAssertTrue(forged.contains { if case .rejected(worker: "other", _, what: "result", reason: "not_sent", _, _, _) = $0 { return true } else { return false } })
        XCTAssertEqual(CoreHarness.writes(in: core.result("sent", a, attempt: 1)), ["job1/[0] from sent"])
        XCTAssertTrue(CoreHarness.writes(in: core.result("sent", a, attempt: 1)).isEmpty, "a photo being written takes no second result")
    }

    /// A worker silent for its liveness, while every message had been read, is lost: its only
    /// photo is charged and goes to another worker alone.
    func testASilentWorkerIsLostAndItsPhotoGoesToAnotherAlone() {
        let core = CoreHarness()
        core.hello("silent")
        core.submit(photos: 1)
        core.credit("silent", 1)
        core.hello("other")
        core.credit("other", 4)
        XCTAssertEqual(core.core.workers["other"]?.inFlight.count, 0)
        core.advance(3.5)
        core.from("other", .heartbeat(.init()))
        XCTAssertNotNil(core.core.workers["silent"], "messages wait unread: silence proves nothing yet")
        _ = core.handle(.heartbeatTick(messagesWaiting: true))
        XCTAssertNotNil(core.core.workers["silent"])
        let lost = core.handle(.heartbeatTick(messagesWaiting: false))
        XCTAssertNil(core.core.workers["silent"])
        XCTAssertEqual(core.core.jobs["job1"]?.workerLosses[0]?.count, 1, "its only photo is charged")
        XCTAssertEqual(CoreHarness.graphs(in: lost).flatMap(\.photos), ["job1/0@2"], "a suspect runs alone on the worker kept for it")
    }

    /// A send the ROUTER refuses puts the photos back at once, and they go to another worker.
    func testAnAssignmentThatCannotBeSentGoesToAnotherWorkerAtOnce() {
        let core = CoreHarness()
        core.hello("gone")
        core.credit("gone", 2)
        core.hello("other")
        core.credit("other", 1)
        core.refuseSendsTo = ["gone"]
        core.submit(photos: 1)
        let graphs = CoreHarness.graphs(in: core.actions + core.handle(.retryTick))
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0).map { core.core.workerIDs[$0.worker] }, "other")
        XCTAssertTrue(core.core.workers["gone"]?.unreachable == true)
        XCTAssertTrue(graphs.isEmpty || graphs.allSatisfy { $0.worker == "gone" || $0.worker == "other" })
    }

    /// A viewport change cancels the photos out of view on the workers that hold them, in one
    /// control message at the new epoch.
    func testAViewportChangeCancelsPhotosOutOfViewOnTheirWorker() {
        let core = CoreHarness()
        core.hello("w", concurrency: 4)
        core.submit(photos: 40, viewport: .with { $0.visibleStart = 0; $0.visibleEnd = 4 })
        XCTAssertEqual(Set(CoreHarness.graphs(in: core.credit("w", 5)).first?.photos ?? []), Set((0..<5).map { "job1/\($0)@1" }))
        let moved = core.handle(.viewport(job: "job1", Viewport(visible: 20...24, prefetch: 0).proto(epoch: 0), arrivedAt: core.now))
        let control = moved.compactMap { action -> Photocluster_V1_JobControl? in
            if case .sendToWorker("w", .control(let control)) = action { return control }
            return nil
        }
        XCTAssertEqual(control.count, 1, "one control message")
        XCTAssertEqual(control.first?.epoch, 2)
        XCTAssertEqual(Set(control.first?.cancel ?? []), [0, 1, 2, 3, 4])
        XCTAssertEqual(core.core.workers["w"]?.inFlight.count, 0)
        XCTAssertEqual(Set(CoreHarness.graphs(in: core.credit("w", 5)).first?.photos ?? []), Set((20..<25).map { "job1/\($0)@1" }))
    }

    /// Moved down from the socket test: only the visible photos and their prefetch band are sent,
    /// however much credit the worker has left.
    func testOnlyTheViewportAndItsPrefetchAreSentWhateverTheCredit() {
        let core = CoreHarness()
        core.hello("w", concurrency: 8)
        core.submit(photos: 40, viewport: .with { $0.visibleStart = 0; $0.visibleEnd = 3; $0.prefetch = 2 })
        let sent = CoreHarness.graphs(in: core.credit("w", 20))
        XCTAssertEqual(Set(sent.flatMap(\.photos)), Set((0...5).map { "job1/\($0)@1" }))
        XCTAssertEqual(core.core.workers["w"]?.credits, 14, "the credit left over stays with the coordinator")
        XCTAssertTrue(CoreHarness.graphs(in: core.credit("w", 1)).isEmpty, "nothing outside visible ∪ prefetch starts")
    }

    /// Moved down from the socket test: while the client scrolls, the job is suspended on every
    /// worker and nothing new is sent; once the viewport settles it resumes everywhere.
    func testScrollingSuspendsEveryWorkerAndSettlingResumes() {
        let core = CoreHarness()
        core.hello("a")
        core.hello("b")
        core.submit(photos: 12)
        XCTAssertEqual(CoreHarness.graphs(in: core.credit("a", 1)).count, 1)
        let scrolling = core.handle(.viewport(job: "job1", Viewport(visible: 0...11, prefetch: 0, scrolling: true).proto(epoch: 0), arrivedAt: core.now))
        XCTAssertEqual(Self.controls(in: scrolling), ["a epoch 2 suspended true", "b epoch 2 suspended true"])
        XCTAssertTrue(CoreHarness.graphs(in: core.credit("b", 2)).isEmpty, "no new photo starts while scrolling")
        core.advance(1)
        XCTAssertTrue(CoreHarness.graphs(in: core.handle(.retryTick)).isEmpty, "no new photo starts while scrolling")

        let settled = core.handle(.viewport(job: "job1", Viewport(visible: 0...11, prefetch: 0).proto(epoch: 0), arrivedAt: core.now))
        XCTAssertEqual(Self.controls(in: settled), ["a epoch 3 suspended false", "b epoch 3 suspended false"])
        XCTAssertEqual(CoreHarness.graphs(in: settled).map(\.worker), ["b"], "the credit that waited is used at once")
    }

    private static func controls(in actions: [CoordinatorAction]) -> [String] {
        actions.compactMap { action -> String? in
            guard case .sendToWorker(let worker, .control(let control)) = action else { return nil }
            return "\(worker) epoch \(control.epoch) suspended \(control.suspended)"
        }.sorted()
    }

    /// A photo held past the assignment timeout without progress is taken back, charged, and
    /// dropped on the worker; progress starts its clock again.
    func testAPhotoHeldWithoutProgressPastTheAssignmentTimeoutIsTakenBack() {
        var settings = CoordinatorCore.Settings(coordinatorID: "test")
        settings.workerBudgets = WorkerBudgets(assignmentTimeout: 5)
        let core = CoreHarness(settings: settings)
        core.hello("w")
        core.submit(photos: 1)
        core.credit("w", 1)
        core.advance(4)
        core.from("w", .progress(.with { $0.jobID = "job1"; $0.photoIndex = 0; $0.attempt = 1; $0.stage = .download }))
        core.advance(4)
        core.heartbeat("w", sequence: 1, holding: [a])
        XCTAssertEqual(CoreHarness.messages(in: core.handle(.heartbeatTick(messagesWaiting: false))), ["w: heartbeat (sequence 1)"], "progress restarted the clock")
        core.advance(2)
        core.heartbeat("w", sequence: 1, holding: [a])
        let overdue = CoreHarness.messages(in: core.handle(.heartbeatTick(messagesWaiting: false)))
        XCTAssertEqual(overdue, ["w: heartbeat (sequence 1)", "w: drop [\"job1/0\"]"])
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.failures, 1, "the attempt is charged")
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.isInFlight, false)
    }

    /// A result of an earlier attempt still settles the photo, and counts for the worker that
    /// made it (the photo had been given to another meanwhile).
    func testTheWorkerWhoseResultSettlesAPhotoCompletedIt() {
        let core = CoreHarness()
        core.hello("a")
        core.submit(photos: 1)
        core.credit("a", 1)
        // It lost touch for a moment and no longer lists the photo: it goes to another worker.
        core.hello("a", holding: [])
        core.hello("b")
        XCTAssertEqual(CoreHarness.graphs(in: core.credit("b", 1)).first?.photos, ["job1/0@2"])
        XCTAssertEqual(CoreHarness.writes(in: core.result("a", self.a, attempt: 1)), ["job1/[0] from a"])
        XCTAssertEqual(core.core.workers["a"]?.completed, 1)
        XCTAssertEqual(core.core.workers["b"]?.completed, 0)
    }
}
