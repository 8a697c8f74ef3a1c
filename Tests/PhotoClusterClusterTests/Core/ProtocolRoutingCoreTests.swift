import Foundation
import PhotoClusterCore
import PhotoClusterProto
import XCTest

@testable import PhotoClusterScheduling

/// During a rolling upgrade, photos that need a worker of protocol 2 (AVIF output, a chosen
/// chroma, a HEIC, AVIF, TIFF, GIF or JPEG XL input by its URL) go only to workers of protocol 2; with none
/// connected they wait, the job's status saying why, and none fails.
final class ProtocolRoutingCoreTests: XCTestCase {
    private func sent(_ actions: [CoordinatorAction]) -> [String] { CoreHarness.graphs(in: actions).flatMap(\.photos) }

    func testAnAVIFJobWaitsForAWorkerOfProtocol2AndItsStatusSaysWhy() throws {
        let core = CoreHarness()
        core.hello("old", protocolVersion: 1)
        let id = core.submit(files: ["a.jpg", "b.png"], format: .avif)
        let job = try XCTUnwrap(core.core.jobs[id])
        let credited = core.credit("old", 4)
        XCTAssertEqual(sent(credited), [], "a worker of protocol 1 would write them as JPEG and PNG")
        XCTAssertEqual(CoreHarness.settled(in: credited), [], "they wait; none fails")
        let reason = try XCTUnwrap(core.core.waitingReason(of: job))
        XCTAssertTrue(reason.hasPrefix("2 photos wait for a worker of protocol 2 or later"), reason)
        XCTAssertTrue(reason.contains("the newest speaks 1"), reason)
        XCTAssertTrue(reason.contains("upgrade a worker"), reason)

        core.hello("new")
        XCTAssertNil(core.core.waitingReason(of: job), "a worker that can take them is connected")
        XCTAssertEqual(sent(core.credit("new", 4)), ["\(id)/0@1", "\(id)/1@1"])
        XCTAssertEqual(sent(core.credit("old", 4)), [], "nothing is left for the old worker")
    }

    func testInputsOnlyTheNewDecodersReadGoToTheNewWorkerAndTheOthersToEither() {
        let core = CoreHarness()
        core.hello("old", protocolVersion: 1)
        core.hello("new")
        let id = core.submit(files: ["a.jpg", "b.HEIC", "c.tiff?size=2", "d.gif", "e.webp", "f.avif#top", "g"])
        // In viewport order, the middle first: sorted here.
        XCTAssertEqual(sent(core.credit("old", 8)).sorted(), ["\(id)/0@1", "\(id)/4@1", "\(id)/6@1"], "JPEG, WebP, and a URL that says nothing")
        XCTAssertEqual(sent(core.credit("new", 8)).sorted(), ["\(id)/1@1", "\(id)/2@1", "\(id)/3@1", "\(id)/5@1"])
    }

    /// A worker of protocol 1 ignores the chroma field: it would write 4:2:0 where 4:4:4 was asked.
    func testAChosenChromaWaitsForProtocol2ButTheAutomaticOneDoesNot() throws {
        let core = CoreHarness()
        core.hello("old", protocolVersion: 1)
        let chosen = core.submit(files: ["a.jpg"], image: .with { $0.chroma = .s444 })
        let automatic = core.submit(files: ["a.jpg"], format: .jpeg)
        XCTAssertEqual(sent(core.credit("old", 4)), ["\(automatic)/0@1"])
        let reason = try XCTUnwrap(core.core.waitingReason(of: XCTUnwrap(core.core.jobs[chosen])))
        XCTAssertTrue(reason.hasPrefix("1 photo waits for a worker of protocol 2"), reason)
        XCTAssertNil(core.core.waitingReason(of: try XCTUnwrap(core.core.jobs[automatic])))
    }

    /// A photo lost when its worker of protocol 2 died (a suspect) keeps off that worker while
    /// another could take it, but a worker of protocol 1 cannot: it goes back to the restarted one.
    func testASuspectLostOnTheOnlyNewWorkerGoesBackToItNotToAnOldOne() {
        let core = CoreHarness()
        core.hello("new")
        core.hello("old", protocolVersion: 1)
        let id = core.submit(files: ["a.heic"])
        XCTAssertEqual(sent(core.credit("new", 1)), ["\(id)/0@1"])
        core.hello("new", incarnation: "new-2")  // restarted: the photo is charged the loss
        XCTAssertEqual(core.core.jobs[id]?.isSuspect(0), true)
        XCTAssertEqual(sent(core.credit("old", 4)), [], "the HEIC is not given to the old worker")
        XCTAssertNotEqual(core.core.reservedForSuspects, "old")
        XCTAssertEqual(sent(core.credit("new", 1)), ["\(id)/0@2"])
    }

    func testTheExtensionIsReadFromTheURLsPathAlone() {
        XCTAssertEqual(ProtocolNeeds.pathExtension(of: "https://h.example/a/b.HEIC?x=1.jpg#y.png"), "heic")
        XCTAssertEqual(ProtocolNeeds.pathExtension(of: "s3://bucket/raw/scan.tif"), "tif")
        XCTAssertEqual(ProtocolNeeds.pathExtension(of: "http://photos.gif"), "", "a host names no file")
        XCTAssertEqual(ProtocolNeeds.pathExtension(of: "http://h/photos.d/7"), "")
        XCTAssertEqual(ProtocolNeeds.pathExtension(of: "http://h/.gif"), "", "a hidden file's name, not an extension")
        XCTAssertEqual(ProtocolNeeds.forInput(url: "http://h/anim.gif"), 2)
        XCTAssertEqual(ProtocolNeeds.forInput(url: "http://h/photo.JXL"), 2, "JPEG XL: read from protocol 2")
        XCTAssertNil(ProtocolNeeds.forInput(url: "http://h/photo.jpeg"))
        XCTAssertNil(ProtocolNeeds.forOutputs(format: .webp, image: .init()))
        XCTAssertEqual(ProtocolNeeds.forOutputs(format: .keep, image: .with { $0.chroma = .s422 }), 2)
    }
}
