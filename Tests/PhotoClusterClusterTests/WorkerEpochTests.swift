import Foundation
import LoopbackHTTP
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import PhotoClusterWorker
import XCTest

/// A worker facing a scripted coordinator (a bare ROUTER socket): control messages older than
/// the newest epoch it has seen for a job are ignored, so late messages cannot bring cancelled
/// work back.
final class WorkerEpochTests: XCTestCase {
    func testOlderEpochsAreIgnored() throws {
        let coordinator = try ScriptedCoordinator()
        defer { coordinator.stop() }

        /// Messages from the worker for up to `seconds`, skipping credits and heartbeats.
        func receive(for seconds: TimeInterval, until done: ([Photocluster_V1_WorkerToCoordinator.OneOf_Body]) -> Bool = { _ in false }) -> [Photocluster_V1_WorkerToCoordinator.OneOf_Body] {
            var bodies: [Photocluster_V1_WorkerToCoordinator.OneOf_Body] = []
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline && !done(bodies) {
                guard let frames = try? coordinator.router.receive(dontWait: true) else { usleep(5_000); continue }
                guard let message = Envelope.decode(Photocluster_V1_WorkerToCoordinator.self, from: frames[1]), let body = message.body else { continue }
                switch body {
                case .credit, .heartbeat, .hello: continue
                default: bodies.append(body)
                }
            }
            return bodies
        }
        XCTAssertTrue(coordinator.receivedHello(), "the worker said hello")

        try coordinator.send(.resume(.with { $0.jobID = "j"; $0.epoch = 5 }))
        try coordinator.send(.suspend(.with { $0.jobID = "j"; $0.epoch = 3 }))
        let acks = receive(for: 0.5).compactMap { body -> UInt64? in
            if case .ack(let ack) = body { return ack.epoch }
            return nil
        }
        XCTAssertEqual(acks, [5], "the epoch-3 suspend was ignored")

        // A graph assigned under an older viewport is handed back at once, never downloaded.
        var graph = Photocluster_V1_PhotoGraph()
        graph.jobID = "j"
        graph.photoIndex = 0
        graph.name = "clock"
        graph.url = "\(coordinator.server.baseURL)/clock.jpg"
        graph.epoch = 4
        graph.attempt = 1
        try coordinator.send(.assign(.with { $0.graph = graph }))
        let replies = receive(for: 0.5)
        XCTAssertTrue(replies.contains { if case .cancelled(let c) = $0 { return c.photoIndex == 0 && c.attempt == 1 } else { return false } }, "\(replies)")
        XCTAssertEqual(coordinator.server.requestCount, 0)

        // The same graph at the current epoch runs: the job is not suspended.
        graph.epoch = 5
        graph.attempt = 2
        try coordinator.send(.assign(.with { $0.graph = graph }))
        let results = receive(for: 10) { $0.contains { if case .result = $0 { return true } else { return false } } }
        XCTAssertTrue(results.contains { if case .result(let r) = $0 { return r.attempt == 2 && r.width == 400 } else { return false } }, "\(results)")
        XCTAssertEqual(coordinator.server.requestCount, 1)
    }
}
