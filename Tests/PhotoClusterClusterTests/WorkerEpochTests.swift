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
        let server = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        let context = try ZMQContext()
        let router = try ZMQSocket(context: context, kind: .router)
        try router.bind("tcp://127.0.0.1:*")
        let worker = WorkerNode(
            configuration: WorkerConfiguration(coordinatorEndpoint: router.lastEndpoint!, workerID: "solo", heartbeatInterval: 5),
            context: context)
        try worker.start()
        defer {
            worker.stop()
            router.close()
            server.stop()
            context.terminate()
        }

        func send(_ body: Photocluster_V1_CoordinatorToWorker.OneOf_Body) throws {
            var message = Photocluster_V1_CoordinatorToWorker()
            message.body = body
            try router.send([Data("solo".utf8), Envelope.encode(message)])
        }
        /// Messages from the worker for up to `seconds`, skipping credits and heartbeats.
        func receive(for seconds: TimeInterval, until done: ([Photocluster_V1_WorkerToCoordinator.OneOf_Body]) -> Bool = { _ in false }) -> [Photocluster_V1_WorkerToCoordinator.OneOf_Body] {
            var bodies: [Photocluster_V1_WorkerToCoordinator.OneOf_Body] = []
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline && !done(bodies) {
                guard let frames = try? router.receive(dontWait: true) else { usleep(5_000); continue }
                guard let message = Envelope.decode(Photocluster_V1_WorkerToCoordinator.self, from: frames[1]), let body = message.body else { continue }
                switch body {
                case .credit, .heartbeat, .hello: continue
                default: bodies.append(body)
                }
            }
            return bodies
        }
        XCTAssertTrue(eventually { (try? router.receive(dontWait: true)) != nil }, "the worker said hello")

        try send(.resume(.with { $0.jobID = "j"; $0.epoch = 5 }))
        try send(.suspend(.with { $0.jobID = "j"; $0.epoch = 3 }))
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
        graph.url = "\(server.baseURL)/clock.jpg"
        graph.epoch = 4
        graph.attempt = 1
        try send(.assign(.with { $0.graph = graph }))
        let replies = receive(for: 0.5)
        XCTAssertTrue(replies.contains { if case .cancelled(let c) = $0 { return c.photoIndex == 0 && c.attempt == 1 } else { return false } }, "\(replies)")
        XCTAssertEqual(server.requestCount, 0)

        // The same graph at the current epoch runs: the job is not suspended.
        graph.epoch = 5
        graph.attempt = 2
        try send(.assign(.with { $0.graph = graph }))
        let results = receive(for: 10) { $0.contains { if case .result = $0 { return true } else { return false } } }
        XCTAssertTrue(results.contains { if case .result(let r) = $0 { return r.attempt == 2 && r.width == 400 } else { return false } }, "\(results)")
        XCTAssertEqual(server.requestCount, 1)
    }
}
