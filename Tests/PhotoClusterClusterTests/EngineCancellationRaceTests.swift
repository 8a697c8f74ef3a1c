import Foundation
import LoopbackHTTP
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterWorker

/// Cancels photos at every point of their graphs, on purpose, and checks that each graph still
/// ends with exactly one outcome and nothing crashes or hangs.
final class EngineCancellationRaceTests: XCTestCase {
    func testEveryGraphEndsExactlyOnceWhateverTheCancelTiming() throws {
        let photo = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("retina.jpg"))
        let server = try LoopbackHTTPServer { request in
            request.path.hasPrefix("/slow")
                ? HTTPResponse(body: photo, trickle: (chunk: 20_000, interval: 0.005))
                : HTTPResponse(body: photo)
        }
        defer { server.stop() }
        let outcomes = LockedBox<[UInt32: [String]]>([:])
        let engine = WorkerEngine(
            configuration: .init(concurrency: 2, downloadSlots: 4).allowingLoopback(), filters: .builtIn,
            onStage: { _, _, _, _, _ in },
            onOutcome: { work, outcome in
                let kind: String
                switch outcome {
                case .encoded: kind = "encoded"
                case .failed(_, let stage, let reason, _): kind = "failed \(stage): \(reason)"
                case .cancelled: kind = "cancelled"
                }
                outcomes.withLock { $0[work.graph.photoIndex, default: []].append(kind) }
            })
        defer { engine.shutdown() }

        let count: UInt32 = 60
        for index in 0..<count {
            var graph = Photocluster_V1_PhotoGraph()
            graph.jobID = "race"
            graph.photoIndex = index
            graph.name = "p\(index)"
            graph.url = "\(server.baseURL)/\(index % 3 == 0 ? "slow" : "fast")/\(index)"
            graph.filters = [.with { $0.name = "sepia" }]
            graph.attempt = 1
            engine.submit(graph)
            // Cancel some at once, some a little later, some never.
            switch index % 4 {
            case 0: engine.cancel(job: "race", photos: [index])
            case 1: DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(index) * 3)) { engine.cancel(job: "race", photos: [index]) }
            default: break
            }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.15) { engine.cancel(job: "race", photos: Set((0..<count).filter { $0 % 4 == 2 })) }

        XCTAssertTrue(eventually(timeout: 30) { outcomes.withLock { $0.count } == Int(count) }, "every graph ended")
        XCTAssertTrue(eventually(timeout: 10) { engine.allDelivered(job: "race") }, "the engine still holds the job")
        let final = outcomes.current
        for index in 0..<count {
            XCTAssertEqual(final[index]?.count, 1, "photo \(index) ended \(final[index] ?? [])")
            let outcome = final[index]?.first ?? ""
            XCTAssertTrue(outcome == "encoded" || outcome == "cancelled", "photo \(index): \(outcome)")
            if index % 4 == 3 { XCTAssertEqual(outcome, "encoded", "photo \(index) was never cancelled") }
        }
        XCTAssertEqual(engine.inFlightCount, 0)
    }

    /// Scrolled away and straight back: the photo is sent again while its cancelled graph is
    /// still winding down. The second graph must run after the first ends, not be dropped.
    func testAGraphSentAgainWhileItsCancelledOneWindsDownRunsAfterIt() throws {
        let photo = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("retina.jpg"))
        let server = try LoopbackHTTPServer { _ in HTTPResponse(body: photo, trickle: (chunk: 20_000, interval: 0.005)) }
        defer { server.stop() }
        let outcomes = LockedBox<[(attempt: UInt32, encoded: Bool)]>([])
        let engine = WorkerEngine(
            configuration: .init(concurrency: 1, downloadSlots: 4).allowingLoopback(), filters: .builtIn,
            onStage: { _, _, _, _, _ in },
            onOutcome: { work, outcome in
                if case .encoded = outcome {
                    outcomes.withLock { $0.append((work.graph.attempt, true)) }
                } else {
                    outcomes.withLock { $0.append((work.graph.attempt, false)) }
                }
            })
        defer { engine.shutdown() }
        for round in 0..<20 {
            var graph = Photocluster_V1_PhotoGraph()
            graph.jobID = "again-\(round)"
            graph.photoIndex = 0
            graph.url = "\(server.baseURL)/p\(round)"
            graph.filters = [.with { $0.name = "sepia" }]
            graph.attempt = 1
            engine.submit(graph)
            Thread.sleep(forTimeInterval: Double(round % 5) * 0.01)
            engine.cancel(job: graph.jobID, photos: [0])
            graph.attempt = 2
            engine.submit(graph)
        }
        XCTAssertTrue(eventually(timeout: 60) { outcomes.withLock { $0.count } == 40 }, "both graphs of every round ended: \(outcomes.current.count)")
        let second = outcomes.current.filter { $0.attempt == 2 }
        XCTAssertEqual(second.count, 20)
        XCTAssertTrue(second.allSatisfy(\.encoded), "every second graph ran to the end")
        XCTAssertEqual(engine.inFlightCount, 0)
    }
}
