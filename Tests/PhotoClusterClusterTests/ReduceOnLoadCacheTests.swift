import Foundation
import LoopbackHTTP
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterWorker

/// A chain that starts with `thumbnail` is shrunk while decoding: the reduced decode is a stage
/// result of its own (cached under the first filter's prefix, apart from whole decodes), and a
/// photo interrupted after it resumes from it.
final class ReduceOnLoadCacheTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var url: String { "\(server.baseURL)/coffee.jpg" }

    override func setUpWithError() throws {
        let body = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg"))
        server = try LoopbackHTTPServer { _ in HTTPResponse(body: body) }
    }

    override func tearDown() {
        server.stop()
    }

    func testTheReducedDecodeIsCachedApartAndResumedFrom() throws {
        let gate = GateFilter(name: "gate", inPlace: false)
        let run = try EngineRun(filters: .builtIn, adding: gate)
        defer { run.engine.shutdown() }
        run.submit(try graph(attempt: 1))
        XCTAssertEqual(gate.entered.wait(timeout: .now() + 30), .success, "the gate filter started")
        run.engine.cancel(job: "reduce", photos: nil)
        XCTAssertEqual(try run.waitForOutcome(attempt: 1), "cancelled")
        XCTAssertEqual(run.stages(attempt: 1), [.download, .decode], "the thumbnail ran inside the decode")

        let thumbnail = try FilterRegistry.builtIn.resolve("thumbnail:width=64,height=64")
        guard case .image(let kept, _)? = run.engine.cache.get(.filtered(url: url, variant: PixelVariant(reducedOnLoad: true), prefix: [thumbnail.identifier])) else {
            return XCTFail("the reduced decode is kept under the thumbnail's prefix")
        }
        XCTAssertEqual([kept.width, kept.height], [64, 43], "coffee.jpg is 600×400")
        XCTAssertNil(run.engine.cache.get(.filtered(url: url, variant: PixelVariant(), prefix: [thumbnail.identifier])), "never mixed with a whole decode's")
        XCTAssertNil(run.engine.cache.get(.decoded(url: url, variant: PixelVariant(reducedOnLoad: true))), "no full-size image was made")

        gate.open.withLock { $0 = true }
        run.submit(try graph(attempt: 2))
        XCTAssertEqual(try run.waitForOutcome(attempt: 2), "encoded")
        XCTAssertEqual(run.stages(attempt: 2), [.filter, .encode], "resumed from the reduced decode")
        XCTAssertEqual(server.requests(forPath: "/coffee.jpg"), 1)
    }

    private func graph(attempt: UInt32) throws -> Photocluster_V1_PhotoGraph {
        var graph = Photocluster_V1_PhotoGraph()
        graph.jobID = "reduce"
        graph.photoIndex = 0
        graph.name = "coffee"
        graph.url = url
        graph.format = .jpeg
        graph.filters = try ClusterHarness.filterSpecs(["thumbnail:width=64,height=64", "gate"])
        graph.attempt = attempt
        return graph
    }
}
