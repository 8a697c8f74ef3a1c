import Foundation
import PhotoClusterCoordinator
import PhotoClusterProto
import PhotoClusterTransport

/// A bare DEALER playing a worker for a real coordinator, message by message, so a test can
/// send what a real worker sends only in a race. Its socket belongs to whichever thread or task
/// drives it, one at a time.
final class ScriptedWorker: @unchecked Sendable {
    let id: String
    private let context: ZMQContext
    private let endpoint: String
    private let curve: CurveClientSettings?
    private let filters: [String]
    /// The stage threads its hello announces: the coordinator bounds its credit by them.
    private let concurrency: UInt32
    private var socket: ZMQSocket
    /// The process it plays: a restart plays a new one.
    private(set) var incarnation = UUID().uuidString
    /// The sequence of the last assignment `nextAssignment` or `nextBatch` took.
    private(set) var lastAssignSequence: UInt64 = 0
    /// Graphs of a batch received but not yet taken by `nextAssignment`.
    private var unclaimed: [Photocluster_V1_PhotoGraph] = []

    /// Connects and says hello with `filters`; credit is the test's to grant.
    convenience init(id: String, context: ZMQContext, coordinator: CoordinatorNode, filters: [String] = ["sepia"], concurrency: UInt32 = 4) throws {
        try self.init(id: id, context: context, endpoint: coordinator.boundWorkerEndpoint, filters: filters, concurrency: concurrency)
    }

    /// Connects to the worker endpoint `endpoint` (with CURVE when `curve` is given) and says hello.
    /// `concurrency` 4 makes a window of 12 graphs (`CreditWindow`): what the scripts grant stays within it.
    init(
        id: String, context: ZMQContext, endpoint: String, curve: CurveClientSettings? = nil, filters: [String] = ["sepia"],
        concurrency: UInt32 = 4
    ) throws {
        self.id = id
        self.concurrency = concurrency
        self.context = context
        self.endpoint = endpoint
        self.curve = curve
        self.filters = filters
        socket = try Self.connect(id: id, context: context, endpoint: endpoint, curve: curve)
        try hello()
    }

    /// Announces the routing id a real worker does: with CURVE, its id and a secret.
    private static func connect(id: String, context: ZMQContext, endpoint: String, curve: CurveClientSettings?) throws -> ZMQSocket {
        let socket = try ZMQSocket(context: context, kind: .dealer)
        try socket.setRoutingID(RoutingIdentity.worker(named: id, secret: curve != nil))
        if let curve { try socket.makeCurveClient(serverPublicKey: curve.serverPublicKey, keys: curve.keys) }
        try socket.connect(endpoint)
        return socket
    }

    /// Says hello as the process it plays, holding `inFlight`.
    func hello(inFlight: [(job: String, index: UInt32)] = []) throws {
        try send(.hello(.with { hello in
            hello.protocolVersion = UInt32(Photocluster_V1_ProtocolVersion.current.rawValue)
            hello.workerID = id
            hello.concurrency = concurrency
            hello.filters = filters.map { name in .with { $0.name = name } }
            hello.incarnation = incarnation
            hello.inFlight = inFlight.map { ref in .with { $0.jobID = ref.job; $0.photoIndex = ref.index } }
        }))
    }

    /// What a worker whose process died and was started again does: a new connection under the
    /// same id, and a hello as a new process holding nothing (and no credit yet).
    ///
    /// The coordinator's ROUTER never hands a routing id over: a connection made before it has
    /// seen the old one close is never heard. A real process takes longer to start than that;
    /// this one connects again, as a real worker does when the coordinator stays silent, until
    /// the coordinator welcomes it.
    func restart() throws {
        socket.close()
        incarnation = UUID().uuidString
        for _ in 0..<50 {
            socket = try Self.connect(id: id, context: context, endpoint: endpoint, curve: curve)
            try hello()
            let welcomed = next(timeout: 0.2) { body -> Bool? in
                if case .welcome = body { return true }
                return nil
            }
            if welcomed == true { return }
            socket.close()
        }
        throw NotWelcomed(worker: id)
    }

    func send(_ body: Photocluster_V1_WorkerToCoordinator.OneOf_Body) throws {
        var message = Photocluster_V1_WorkerToCoordinator()
        message.body = body
        try socket.send([Envelope.encode(message)])
    }

    /// A heartbeat saying what a real worker's says: the newest assignment it accounted for and
    /// the photos it holds.
    func heartbeat(assignSequence: UInt64, held: [Photocluster_V1_PhotoGraph]) throws {
        try send(.heartbeat(.with { beat in
            beat.assignSequence = assignSequence
            beat.held = held.map { graph in .with { $0.jobID = graph.jobID; $0.photoIndex = graph.photoIndex } }
        }))
    }

    func grant(_ credits: UInt32) throws {
        try send(.credit(.with { $0.grant = credits }))
    }

    /// The graph of the next assignment, passing over every other message; nil after `timeout`.
    /// Graphs the coordinator sent together come one by one.
    func nextAssignment(timeout: TimeInterval = 30) -> Photocluster_V1_PhotoGraph? {
        if unclaimed.isEmpty, let graphs = nextBatch(timeout: timeout) { unclaimed = graphs }
        return unclaimed.isEmpty ? nil : unclaimed.removeFirst()
    }

    /// The graphs of the next message that assigns any, passing over every other message; nil
    /// after `timeout`.
    func nextBatch(timeout: TimeInterval = 30) -> [Photocluster_V1_PhotoGraph]? {
        let assigned: (graphs: [Photocluster_V1_PhotoGraph], sequence: UInt64)? = next(timeout: timeout) { body in
            switch body {
            case .assign(let assign): return ([assign.graph], assign.sequence)
            case .assignBatch(let batch): return (batch.graphs, batch.sequence)
            default: return nil
            }
        }
        if let assigned { lastAssignSequence = assigned.sequence }
        return assigned?.graphs
    }

    /// Reports sent together as a worker's batch, with `credit`; `photos` follow the envelope
    /// as frames, taken by the results whose `photoInFrame` is set.
    func sendReports(_ reports: [Photocluster_V1_WorkerReport.OneOf_Body], credit: UInt32, photos: [Data] = []) throws {
        var message = Photocluster_V1_WorkerToCoordinator()
        message.reports.reports = reports.map { body in .with { $0.body = body } }
        message.reports.credit = credit
        try socket.send([Envelope.encode(message)] + photos)
    }

    /// The first message `pick` takes something from, passing over the others; nil after `timeout`.
    func next<T>(timeout: TimeInterval = 30, _ pick: (Photocluster_V1_CoordinatorToWorker.OneOf_Body) -> T?) -> T? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            guard let frames = try? socket.receive(dontWait: true) else {
                usleep(2_000)
                continue
            }
            if let body = Envelope.decode(Photocluster_V1_CoordinatorToWorker.self, from: frames[0])?.body, let picked = pick(body) {
                return picked
            }
        } while Date() < deadline
        return nil
    }

    /// What a real worker reports when one of the graph's stages finishes.
    func reportStage(_ stage: Photocluster_V1_Stage, of graph: Photocluster_V1_PhotoGraph) throws {
        try send(.progress(.with {
            $0.jobID = graph.jobID
            $0.photoIndex = graph.photoIndex
            $0.stage = stage
            $0.bytes = 1
            $0.seconds = 0.001
        }))
    }

    /// A result carrying `encoded` inside the envelope (no frame after it).
    func sendResult(of graph: Photocluster_V1_PhotoGraph, encoded: Data) throws {
        try send(.result(.with {
            $0.jobID = graph.jobID
            $0.photoIndex = graph.photoIndex
            $0.attempt = graph.attempt
            $0.encoded = encoded
            $0.format = .jpeg
            $0.width = 1
            $0.height = 1
        }))
    }

    /// Reads and drops every message waiting, so the coordinator's sends never find it full.
    func drain() {
        while (try? socket.receive(dontWait: true)) != nil {}
    }

    func close() {
        socket.close()
    }
}

/// A restarted `ScriptedWorker` heard nothing from the coordinator.
struct NotWelcomed: Error, CustomStringConvertible {
    let worker: String
    var description: String { "worker \(worker) was not welcomed after restarting" }
}
