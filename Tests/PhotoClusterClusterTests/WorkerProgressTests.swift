import Foundation
import LoopbackHTTP
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import PhotoClusterWorker
import XCTest

/// A worker sends stage progress in batches (on its loop's tick, or with an outcome) rather
/// than one wake-up per stage: progress must still arrive while a photo runs, and always
/// before that photo's outcome.
final class WorkerProgressTests: XCTestCase {
    func testProgressArrivesWhileAPhotoRunsAndBeforeItsResult() throws {
        let gate = GateFilter(name: "gate", inPlace: false)
        var filters = FilterRegistry.builtIn
        try filters.register(gate)
        let coordinator = try ScriptedCoordinator(engine: .init(concurrency: 1), filters: filters)
        defer {
            gate.open.withLock { $0 = true }
            coordinator.stop()
        }
        var received: [Photocluster_V1_WorkerToCoordinator.OneOf_Body] = []
        func receive(for seconds: TimeInterval, until done: () -> Bool) {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline && !done() {
                guard let frames = try? coordinator.router.receive(dontWait: true) else { usleep(2_000); continue }
                for body in WorkerMessages.bodies(frames) {
                    switch body {
                    case .credit, .heartbeat, .hello: continue
                    default: received.append(body)
                    }
                }
            }
        }
        func progress(_ photo: UInt32) -> [Photocluster_V1_Stage] {
            received.compactMap { if case .progress(let p) = $0, p.photoIndex == photo { return p.stage } else { return nil } }
        }
        func resultIndex(_ photo: UInt32) -> Int? {
            received.firstIndex { if case .result(let r) = $0 { return r.photoIndex == photo } else { return false } }
        }
        XCTAssertTrue(coordinator.receivedHello(), "the worker said hello")

        func assign(_ photo: UInt32, _ name: String, filters: [String]) throws {
            let specs = try ClusterHarness.filterSpecs(filters)
            try coordinator.send(.assign(.with { assign in
                assign.graph.jobID = "j"
                assign.graph.photoIndex = photo
                assign.graph.name = name
                assign.graph.url = "\(coordinator.server.baseURL)/\(name).jpg"
                assign.graph.attempt = 1
                assign.graph.filters = specs
            }))
        }
        // Held at the gate after its download and decode: their progress comes on the tick.
        try assign(0, "coffee", filters: ["gate"])
        XCTAssertEqual(gate.entered.wait(timeout: .now() + 30), .success, "the photo reached its filter")
        receive(for: 5) { progress(0).count >= 2 }
        XCTAssertEqual(progress(0), [.download, .decode], "progress of a photo still running: \(received)")
        XCTAssertNil(resultIndex(0))

        // Finishing photos send their progress with their results, never after them.
        gate.open.withLock { $0 = true }
        try assign(1, "clock", filters: ["sepia"])
        try assign(2, "chelsea", filters: ["sepia"])
        receive(for: 30) { (0...2).allSatisfy { resultIndex($0) != nil } }
        for photo: UInt32 in 0...2 {
            guard let result = resultIndex(photo) else { XCTFail("photo \(photo) has no result: \(received)"); continue }
            let after = received[(result + 1)...].contains { if case .progress(let p) = $0 { return p.photoIndex == photo } else { return false } }
            XCTAssertFalse(after, "photo \(photo)'s progress came after its result: \(received)")
        }
        XCTAssertEqual(progress(0), [.download, .decode, .filter])
        XCTAssertEqual(progress(1), [.download, .decode, .filter])
    }
}
