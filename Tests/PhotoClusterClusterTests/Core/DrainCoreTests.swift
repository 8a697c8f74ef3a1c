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

    /// The photos a draining worker hands back go to the other worker as the report arrives, not
    /// when that worker next grants credit.
    func testAPhotoHandedBackByADrainingWorkerGoesToTheOtherWorkerAtOnce() {
        let core = CoreHarness()
        core.hello("leaving")
        core.hello("steady")
        core.submit(photos: 1)
        XCTAssertEqual(CoreHarness.graphs(in: core.credit("leaving", 1)).first?.photos, ["job1/0@1"])
        XCTAssertTrue(CoreHarness.graphs(in: core.credit("steady", 1)).isEmpty, "nothing left for steady yet")
        core.from("leaving", .draining(.with { $0.handedBack = 1; $0.timeoutMs = 20_000 }))
        var reports = Photocluster_V1_WorkerReports()
        reports.reports = [.with { $0.cancelled = .with { $0.jobID = "job1"; $0.photoIndex = 0; $0.attempt = 1 } }]
        reports.credit = 1
        let sent = CoreHarness.graphs(in: core.from("leaving", .reports(reports)))
        XCTAssertEqual(sent.map(\.worker), ["steady"], "the photo handed back went to steady with the report")
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
