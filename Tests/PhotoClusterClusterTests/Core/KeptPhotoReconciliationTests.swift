import Foundation
import PhotoClusterCore
import PhotoClusterProto
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterProtocol
@testable import PhotoClusterScheduling

/// Photos a worker's hello says it still holds stay in flight on its new registration. A kept
/// photo the worker then stops holding without an outcome (a drop meant for its registration
/// before reached it after the hello) is found by heartbeats like a lost assignment, and not
/// left in flight until the assignment deadline (15 minutes).
final class KeptPhotoReconciliationTests: XCTestCase {
    private let photo = PhotoRef(job: "job1", index: 0)

    private func registeredAgainHolding() -> CoreHarness {
        let core = CoreHarness()
        core.hello("w")
        core.submit(photos: 1)
        XCTAssertEqual(CoreHarness.graphs(in: core.credit("w", 1)).flatMap(\.photos), ["job1/0@1"])
        core.hello("w", holding: [photo])
        XCTAssertEqual(core.core.workers["w"]?.inFlight, [photo], "kept on the new registration")
        return core
    }

    func testAKeptPhotoNoLongerHeldInTwoHeartbeatsIsChargedAndLeavesTheWorker() {
        let core = registeredAgainHolding()
        core.heartbeat("w", sequence: 0, holding: [])
        XCTAssertEqual(core.core.workers["w"]?.inFlight, [photo], "one heartbeat: its outcome may be on its way")
        core.heartbeat("w", sequence: 0, holding: [])
        XCTAssertEqual(core.core.workers["w"]?.inFlight, [], "two: it was lost")
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.failures, 1, "the attempt is charged; it is tried again after the back-off")
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.isSettled, false)
    }

    func testAKeptPhotoStillHeldOrFinishedIsLeftAlone() {
        let core = registeredAgainHolding()
        core.heartbeat("w", sequence: 0, holding: [photo])
        core.heartbeat("w", sequence: 0, holding: [photo])
        XCTAssertEqual(core.core.workers["w"]?.inFlight, [photo])
        XCTAssertFalse(CoreHarness.writes(in: core.result("w", photo, attempt: 1)).isEmpty, "its result is written")
        core.heartbeat("w", sequence: 0, holding: [])
        core.heartbeat("w", sequence: 0, holding: [])
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.failures, 0, "a finished photo is not charged")
    }

    /// Heartbeats that left between a hello and its welcome, from a worker that still names its
    /// registration before (sequence 5 there; this one sent sequence 1): its new graphs are not
    /// taken for lost, and its free slots earn no credit on top of them.
    func testHeartbeatsCountingTheRegistrationBeforeAreNotReconciled() {
        let core = CoreHarness()
        core.hello("w", concurrency: 2)
        core.submit(photos: 8)
        let sent = CoreHarness.graphs(in: core.credit("w", 6)).flatMap(\.photos)
        XCTAssertEqual(sent.count, 6)
        let inFlight = core.core.workers["w"]?.inFlight
        core.heartbeat("w", sequence: 5, holding: [], freeSlots: 6)
        core.heartbeat("w", sequence: 5, holding: [], freeSlots: 6)
        XCTAssertEqual(core.core.workers["w"]?.inFlight, inFlight, "none taken for lost")
        XCTAssertEqual(core.core.workers["w"]?.credits, 0, "no credit beyond the window")
        XCTAssertEqual(core.core.jobs["job1"]?.photos.map(\.failures).reduce(0, +), 0)
        // The next heartbeat of this registration is read as ever.
        core.heartbeat("w", sequence: 1, holding: [])
        core.heartbeat("w", sequence: 1, holding: [])
        XCTAssertEqual(core.core.jobs["job1"]?.photos.map(\.failures).reduce(0, +), 6, "lost in two heartbeats of this registration")
    }

    /// A worker stopped while no coordinator was up said heartbeats for its registration before;
    /// on waking it replaced its socket and said hello again, and the old socket's heartbeats,
    /// flushed meanwhile, were read after the new hello. They name sequence 1 of the registration
    /// before, as the new one's first batch is numbered (seed 4261 with `--leader-faults-every 3`):
    /// naming the earlier hello, they account for nothing of the new registration.
    func testHeartbeatsOfAnEarlierHelloReadAfterTheNewOneAreNotReconciled() {
        let core = CoreHarness()
        core.hello("w", helloNumber: 1)
        core.submit(photos: 1)
        core.credit("w", 1)
        core.hello("w", helloNumber: 2)
        XCTAssertEqual(CoreHarness.graphs(in: core.credit("w", 1)).map(\.sequence), [1], "the new registration's first batch")
        core.heartbeat("w", sequence: 1, holding: [], helloNumber: 1)
        core.heartbeat("w", sequence: 1, holding: [], helloNumber: 1)
        XCTAssertEqual(core.core.workers["w"]?.inFlight, [photo], "not taken for lost")
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.failures, 0)
        core.heartbeat("w", sequence: 1, holding: [], helloNumber: 2)
        core.heartbeat("w", sequence: 1, holding: [], helloNumber: 2)
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.failures, 1, "lost in two heartbeats of the new registration")
    }

    /// A worker of protocol 1 may not name what it holds (its sequence stays 0): nothing of it is
    /// taken for lost.
    func testAnOlderWorkersSilenceAboutWhatItHoldsIsNotALoss() {
        let core = CoreHarness()
        core.hello("w", protocolVersion: 1)
        core.submit(photos: 1)
        core.credit("w", 1)
        core.hello("w", holding: [photo], protocolVersion: 1)
        core.heartbeat("w", sequence: 0, holding: [])
        core.heartbeat("w", sequence: 0, holding: [])
        XCTAssertEqual(core.core.workers["w"]?.inFlight, [photo])
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.failures, 0)
    }
}
