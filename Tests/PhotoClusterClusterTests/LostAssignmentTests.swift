import Foundation
import LoopbackHTTP
import PhotoClusterClient
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import PhotoClusterWorker
import XCTest

@testable import PhotoClusterCoordinator

/// An assignment lost on its way (a ROUTER drops what it cannot deliver; a broken connection
/// loses what it carried) must not leave its photo "in flight" on a live worker for ever: a
/// send that fails puts the photo back at once, and heartbeats, which name what a worker holds
/// and the newest assignment it accounted for, find the losses no send could see.
final class LostAssignmentTests: XCTestCase {
    private var cluster: ScriptedWorkerCluster?
    private let url = "http://127.0.0.1:9/photo.jpg"

    override func tearDown() {
        cluster?.stop()
    }

    private func start(liveness: Int = 3) throws -> ScriptedWorkerCluster {
        let cluster = try ScriptedWorkerCluster(name: "lost-assignment", heartbeat: (1, liveness))
        self.cluster = cluster
        return cluster
    }

    // What heartbeats do with an assignment lost or still on its way is tested on the core,
    // event by event (`CoordinatorCoreTests`); here, what only a real ROUTER shows.

    /// A worker whose connection is gone: the ROUTER refuses the assignment, and the photo goes
    /// to another worker at once instead of waiting out the first one's liveness (a minute here).
    func testAnAssignmentThatCannotBeSentGoesToAnotherWorkerAtOnce() async throws {
        let cluster = try start(liveness: 60)
        let gone = try cluster.connect("gone")
        try gone.grant(2)
        XCTAssertTrue(eventually { cluster.coordinator.onLoop { cluster.coordinator.workers["gone"]?.credits == 2 } }, "the credit arrived before the close")
        XCTAssertTrue(routes(to: "gone", in: cluster), "the coordinator routes to the worker while it is connected")
        gone.close()
        XCTAssertTrue(eventually { !routes(to: "gone", in: cluster) }, "the coordinator's ROUTER still routes to the closed worker")
        let other = try cluster.connect("other")
        try other.grant(1)
        _ = try await cluster.client.submit(try ClusterHarness.submit([("a", url)], out: cluster.out, format: .jpeg))
        let graph = try XCTUnwrap(other.nextAssignment(timeout: 5), "the photo waits on a worker that never got it")
        XCTAssertEqual(graph.photoIndex, 0)
    }

    /// A real worker reports the photos it holds and the newest assignment it accounted for:
    /// its own assignment's sequence, or a higher one a coordinator heartbeat named.
    func testAWorkerReportsWhatItHoldsAndTheAssignmentsItAccountedFor() throws {
        let gate = GateFilter(name: "gate", inPlace: false)
        var filters = FilterRegistry.builtIn
        try filters.register(gate)
        let coordinator = try ScriptedCoordinator(engine: .init(concurrency: 1), filters: filters)
        defer {
            gate.open.withLock { $0 = true }
            coordinator.stop()
        }
        XCTAssertTrue(coordinator.receivedHello())
        try coordinator.send(.welcome(.with { $0.coordinatorID = "scripted"; $0.heartbeatIntervalMs = 50; $0.heartbeatLiveness = 100 }))
        let specs = try ClusterHarness.filterSpecs(["gate"])
        try coordinator.send(.assign(.with { assign in
            assign.graph.jobID = "j"
            assign.graph.photoIndex = 3
            assign.graph.name = "coffee"
            assign.graph.url = "\(coordinator.server.baseURL)/coffee.jpg"
            assign.graph.attempt = 1
            assign.graph.filters = specs
            assign.sequence = 7
        }))
        XCTAssertEqual(gate.entered.wait(timeout: .now() + 30), .success, "the photo reached its filter")
        XCTAssertNotNil(heartbeat(from: coordinator) { $0.assignSequence == 7 && $0.held.map(\.photoIndex) == [3] }, "the held photo and its assignment")
        try coordinator.send(.heartbeat(.with { $0.assignSequence = 9 }))
        XCTAssertNotNil(heartbeat(from: coordinator) { $0.assignSequence == 9 && $0.held.map(\.photoIndex) == [3] }, "the coordinator's newest assignment")
    }

    /// Real workers beating every 10 ms through a job: a photo that is held, or whose outcome is
    /// on its way, is never taken for lost (each photo is sent once, nothing is requeued).
    func testHeartbeatsNeverTakeAPhotoFromTheWorkerThatHoldsIt() async throws {
        let server = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        let context = try ZMQContext()
        let out = Repository.temporaryDirectory("lost-assignment-real")
        let coordinator = CoordinatorNode(
            configuration: CoordinatorConfiguration(
                workerEndpoint: "tcp://127.0.0.1:*", clientEndpoint: "tcp://127.0.0.1:*", heartbeatInterval: 0.01, heartbeatLiveness: 300),
            context: context)
        try coordinator.start()
        let workers = try ["a", "b"].map { id in
            let worker = WorkerNode(
                configuration: WorkerConfiguration(
                    coordinatorEndpoint: coordinator.boundWorkerEndpoint, workerID: id, engine: .init(concurrency: 1).allowingLoopback(), heartbeatInterval: 0.01),
                context: context)
            try worker.start()
            return worker
        }
        let client = try ClusterClient(endpoint: coordinator.boundClientEndpoint, context: context)
        defer {
            client.close()
            for worker in workers { worker.stop() }
            coordinator.stop()
            context.terminate()
            server.stop()
            try? FileManager.default.removeItem(at: out)
        }
        XCTAssertTrue(eventually { coordinator.workerSnapshot().count == 2 })
        let photos = (0..<4).flatMap { round in ClusterHarness.samples(on: server).map { ("\(round)-\($0.name)", $0.url + "?\(round)") } }
        let (_, summary, _) = try await ClusterHarness.run(try ClusterHarness.submit(photos, out: out), on: client)
        XCTAssertEqual(Int(summary?.progress.succeeded ?? 0), photos.count)
        XCTAssertEqual(summary?.requeues, 0, "a photo was taken from the worker that held it")
        XCTAssertEqual(summary?.photos.filter { $0.attempts != 1 }.map(\.name), [])
    }

    /// Whether the coordinator's ROUTER still routes to worker `id`, as its own sends find out: a
    /// heartbeat leaves (into the connection, even one being torn down) or is refused.
    private func routes(to id: String, in cluster: ScriptedWorkerCluster) -> Bool {
        let heartbeat = Envelope.encode(Photocluster_V1_CoordinatorToWorker.with { $0.body = .heartbeat(.init()) })
        return cluster.coordinator.onLoop { cluster.coordinator.send(encoded: heartbeat, to: id) }
    }

    private func heartbeat(from coordinator: ScriptedCoordinator, where wanted: (Photocluster_V1_Heartbeat) -> Bool) -> Photocluster_V1_Heartbeat? {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard let frames = try? coordinator.router.receive(dontWait: true) else {
                usleep(2_000)
                continue
            }
            if case .heartbeat(let beat)? = Envelope.decode(Photocluster_V1_WorkerToCoordinator.self, from: frames[1])?.body, wanted(beat) { return beat }
        }
        return nil
    }
}
