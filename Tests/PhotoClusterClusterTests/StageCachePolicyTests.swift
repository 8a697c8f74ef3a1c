import Foundation
import LoopbackHTTP
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterWorker

/// What a worker keeps for a photo's return: the downloaded bytes of every photo (of unfinished
/// ones only, where it is told to keep no finished downloads), and the pixels of each finished
/// stage only while the photo has not finished.
final class StageCachePolicyTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var photo = Data()
    private var url: String { "\(server.baseURL)/coffee.jpg" }

    override func setUpWithError() throws {
        photo = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg"))
        let body = photo
        server = try LoopbackHTTPServer { _ in HTTPResponse(body: body) }
    }

    override func tearDown() {
        server.stop()
    }

    func testAFinishedPhotoLeavesItsBytesButNotItsPixels() throws {
        let run = try EngineRun(filters: .builtIn)
        defer { run.engine.shutdown() }
        run.submit(try graph(filters: ["sepia"], attempt: 1))
        XCTAssertEqual(try run.waitForOutcome(attempt: 1), "encoded")
        guard case .bytes(let bytes)? = run.engine.cache.get(.downloaded(url: url)) else {
            return XCTFail("the download is kept")
        }
        XCTAssertEqual(bytes, photo)
        XCTAssertNil(run.engine.cache.get(.decoded(url: url, variant: PixelVariant())), "a finished photo's pixels are not kept")
        XCTAssertEqual(run.engine.cache.usedBytes, photo.count)
    }

    /// A worker of a cluster that runs one job: a finished photo leaves nothing in the cache,
    /// while an interrupted one keeps its download and does not fetch it again on its return.
    func testAWorkerThatKeepsNoFinishedDownloadsKeepsOnlyThoseOfInterruptedPhotos() throws {
        let gate = GateFilter(name: "gate", inPlace: false)
        let run = try EngineRun(filters: .builtIn, adding: gate, keepsFinishedDownloads: false)
        defer { run.engine.shutdown() }
        run.submit(try graph(filters: ["gate"], attempt: 1))
        XCTAssertEqual(gate.entered.wait(timeout: .now() + 30), .success, "the gate filter started")
        run.engine.cancel(job: "cache", photos: nil)
        XCTAssertEqual(try run.waitForOutcome(attempt: 1), "cancelled")
        guard case .bytes(let bytes)? = run.engine.cache.get(.downloaded(url: url)) else {
            return XCTFail("an interrupted photo's download is kept for its return")
        }
        XCTAssertEqual(bytes, photo)

        gate.open.withLock { $0 = true }
        run.submit(try graph(filters: ["gate"], attempt: 2))
        XCTAssertEqual(try run.waitForOutcome(attempt: 2), "encoded")
        XCTAssertEqual(server.requests(forPath: "/coffee.jpg"), 1, "the return did not download again")
        XCTAssertNil(run.engine.cache.get(.downloaded(url: url)), "finished: its download left the cache")
        XCTAssertEqual(run.engine.cache.count, 0)
        XCTAssertEqual(run.engine.cache.usedBytes, 0)
    }

    /// Cancelled while its second filter runs: the first filter's output is kept, and the photo
    /// sent again starts from it.
    func testAPhotoInterruptedAfterAFilterResumesFromThatFiltersOutput() throws {
        let gate = GateFilter(name: "gate", inPlace: false)
        let run = try EngineRun(filters: .builtIn, adding: gate)
        defer { run.engine.shutdown() }
        run.submit(try graph(filters: ["blur:sigma=1", "gate"], attempt: 1))
        XCTAssertEqual(gate.entered.wait(timeout: .now() + 30), .success, "the gate filter started")
        run.engine.cancel(job: "cache", photos: nil)
        XCTAssertEqual(try run.waitForOutcome(attempt: 1), "cancelled")

        let blur = try FilterRegistry.builtIn.resolve("blur:sigma=1")
        guard case .image(let kept, _)? = run.engine.cache.get(.filtered(url: url, variant: PixelVariant(), prefix: [blur.identifier])) else {
            return XCTFail("the blur's output is kept for the photo's return")
        }
        let decoded = try ImageCodec.decode(photo).image
        let expected = try blur.stage.apply(toCopyOf: decoded, parameters: blur.parameters, isCancelled: { false })
        XCTAssertEqual(Data(bytes: kept.pixels, count: kept.byteCount), Data(bytes: expected.pixels, count: expected.byteCount))

        gate.open.withLock { $0 = true }
        run.submit(try graph(filters: ["blur:sigma=1", "gate"], attempt: 2))
        XCTAssertEqual(try run.waitForOutcome(attempt: 2), "encoded")
        XCTAssertEqual(run.stages(attempt: 2), [.filter, .encode], "no download, decode or blur the second time")
        XCTAssertEqual(server.requests(forPath: "/coffee.jpg"), 1)
        XCTAssertNil(run.engine.cache.get(.decoded(url: url, variant: PixelVariant())), "finished now: its pixels left the cache")
        XCTAssertEqual(run.engine.cache.count, 1, "only the download stays")
    }

    /// Cancelled halfway through a filter that changes its input in place: the cached decoded
    /// pixels must be untouched (the filter ran on a copy), and the photo resumes from them.
    func testAFilterStoppedHalfwayLeavesTheCachedPixelsUntouched() throws {
        let gate = GateFilter(name: "gate", inPlace: true)
        let run = try EngineRun(filters: .builtIn, adding: gate)
        defer { run.engine.shutdown() }
        run.submit(try graph(filters: ["gate"], attempt: 1))
        XCTAssertEqual(gate.entered.wait(timeout: .now() + 30), .success, "the gate filter started")
        run.engine.cancel(job: "cache", photos: nil)
        XCTAssertEqual(try run.waitForOutcome(attempt: 1), "cancelled")
        guard case .image(let kept, _)? = run.engine.cache.get(.decoded(url: url, variant: PixelVariant())) else {
            return XCTFail("the decoded pixels are kept for the photo's return")
        }
        let decoded = try ImageCodec.decode(photo).image
        XCTAssertEqual(Data(bytes: kept.pixels, count: kept.byteCount), Data(bytes: decoded.pixels, count: decoded.byteCount))

        gate.open.withLock { $0 = true }
        run.submit(try graph(filters: ["gate"], attempt: 2))
        XCTAssertEqual(try run.waitForOutcome(attempt: 2), "encoded")
        XCTAssertEqual(run.stages(attempt: 2), [.filter, .encode], "resumed from the decoded pixels")
        XCTAssertEqual(server.requests(forPath: "/coffee.jpg"), 1)
    }

    private func graph(filters: [String], attempt: UInt32) throws -> Photocluster_V1_PhotoGraph {
        var graph = Photocluster_V1_PhotoGraph()
        graph.jobID = "cache"
        graph.photoIndex = 0
        graph.name = "coffee"
        graph.url = url
        graph.format = .jpeg
        graph.filters = try ClusterHarness.filterSpecs(filters)
        graph.attempt = attempt
        return graph
    }
}
