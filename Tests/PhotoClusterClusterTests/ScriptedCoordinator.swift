import Foundation
import LoopbackHTTP
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterProtocol
import PhotoClusterTestSupport
import PhotoClusterTransport
import PhotoClusterWorker

/// A real worker facing a scripted coordinator: a bare ROUTER on loopback that the test drives
/// message by message, and a loopback HTTP server with the sample photos for the worker to fetch
/// (the worker allows loopback for it). Over `inproc` instead (`endpoint`), what the router sends
/// is in the worker's socket when `send` returns: no I/O thread carries it.
/// The router belongs to the test's thread.
final class ScriptedCoordinator {
    static let workerID = "solo"

    let server: LoopbackHTTPServer
    let router: ZMQSocket
    let worker: WorkerNode
    private let context: ZMQContext

    init(engine: WorkerEngine.Configuration = .init(), filters: FilterRegistry = .builtIn, endpoint: String = "tcp://127.0.0.1:*") throws {
        server = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        context = try ZMQContext()
        router = try ZMQSocket(context: context, kind: .router)
        try router.bind(endpoint)
        worker = WorkerNode(
            configuration: WorkerConfiguration(
                coordinatorEndpoint: router.lastEndpoint ?? endpoint, workerID: Self.workerID, engine: engine.allowingLoopback(), heartbeatInterval: 5,
                filters: filters),
            context: context)
        try worker.start()
    }

    /// Whether the worker's first message (its hello) arrived within the usual wait; it is
    /// welcomed, as a coordinator does (a worker runs no graph that reaches it before).
    func receivedHello() -> Bool {
        guard eventually({ (try? router.receive(dontWait: true)) != nil }) else { return false }
        return (try? send(.welcome(.with { $0.coordinatorID = "scripted"; $0.protocolVersion = ProtocolVersions.current }))) != nil
    }

    func send(_ body: Photocluster_V1_CoordinatorToWorker.OneOf_Body) throws {
        var message = Photocluster_V1_CoordinatorToWorker()
        message.body = body
        try router.send([Data(Self.workerID.utf8), Envelope.encode(message)])
    }

    /// Stops the worker, then closes the router, the photo server and the context.
    func stop() {
        worker.stop()
        router.close()
        server.stop()
        context.terminate()
    }
}
