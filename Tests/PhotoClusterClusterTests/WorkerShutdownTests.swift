import Foundation
import LoopbackHTTP
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterWorker

/// A worker that is stopping hands back what reaches it: a graph submitted while or after the
/// engine shuts down is cancelled at once, never started on a closed downloader (whose refusal
/// would read as a failed download and cost the photo an attempt).
final class WorkerShutdownTests: XCTestCase {
    func testAGraphSubmittedAfterShutdownIsHandedBackUntouched() throws {
        let server = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        defer { server.stop() }
        let run = try EngineRun(filters: .builtIn)
        run.engine.shutdown()
        var graph = Photocluster_V1_PhotoGraph()
        graph.jobID = "late"
        graph.photoIndex = 0
        graph.name = "coffee"
        graph.url = "\(server.baseURL)/coffee.jpg"
        graph.filters = try ClusterHarness.filterSpecs(["sepia"])
        graph.attempt = 1
        run.submit(graph)
        XCTAssertEqual(try run.waitForOutcome(attempt: 1), "cancelled")
        XCTAssertEqual(server.requestCount, 0, "nothing was downloaded")
        XCTAssertEqual(run.engine.inFlightCount, 0)
    }
}
