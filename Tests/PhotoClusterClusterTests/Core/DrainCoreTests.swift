import Foundation
import PhotoClusterCore
import PhotoClusterProto
import XCTest

@testable import PhotoClusterScheduling

/// A draining worker in the scheduling core: it is given nothing, whatever credit it grants, and
/// an admin's drain marks it before it answers.
final class DrainCoreTests: XCTestCase {
    func testADrainingWorkerIsGivenNothingAndTheOtherWorkerGetsThePhotos() {
        let core = CoreHarness()
        core.hello("leaving")
        core.hello("steady")
        core.from("leaving", .draining(.with { $0.running = 1; $0.timeoutMs = 20_000 }))
        XCTAssertNotNil(core.core.workers["leaving"]?.draining)
        core.submit(photos: 2)
        XCTAssertTrue(CoreHarness.graphs(in: core.credit("leaving", 4)).isEmpty, "credit from a draining worker brings it nothing")
        XCTAssertEqual(CoreHarness.graphs(in: core.credit("steady", 4)).first?.photos.count, 2, "the other worker gets both photos")
    }

    func testAnAdminsDrainTellsTheWorkerAndStopsItsWorkAtOnce() {
        let core = CoreHarness()
        core.hello("w")
        XCTAssertEqual(CoreHarness.messages(in: core.handle(.drainWorker("w", timeoutMs: 5000))), ["w: drain"])
        XCTAssertEqual(core.core.workers["w"]?.isDrained, true, "holding nothing, it is drained at once")
        core.submit(photos: 1)
        XCTAssertTrue(CoreHarness.graphs(in: core.credit("w", 4)).isEmpty, "nothing goes to it before its own WorkerDraining arrives")
        core.from("w", .draining(.with { $0.stays = true; $0.timeoutMs = 5000 }))
        XCTAssertTrue(CoreHarness.graphs(in: core.credit("w", 4)).isEmpty, "nor after")
        core.hello("w", incarnation: "restarted")
        XCTAssertNil(core.core.workers["w"]?.draining, "a restarted process takes work again")
    }
}
