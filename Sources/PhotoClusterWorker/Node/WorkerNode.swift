import Foundation
import Logging
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterMetrics
import PhotoClusterProto
import PhotoClusterProtocol
import PhotoClusterStorage
import PhotoClusterTransport

/// A worker: a DEALER connected to the coordinator, and a `WorkerEngine` that runs the graphs
/// it receives.
///
/// The socket belongs to the loop thread. Engine callbacks arrive on operation threads and are
/// posted to the loop, which gathers what they report in `reports` and sends it as one
/// `WorkerReports` message when its turn ends (so a burst of outcomes costs one message, and a
/// lone outcome waits for nothing); messages that cannot be sent yet (no connection) wait in
/// `unsent`. Both are loop-owned. Stage progress is not worth a wake-up of its own: it waits in
/// `pendingProgress` (lock-free: stage threads put into it) for the loop's next tick or the
/// photo's outcome.
public final class WorkerNode: @unchecked Sendable {
    public let configuration: WorkerConfiguration
    let context: ZMQContext
    /// Internal, not private: tests hold it to make messages arrive in one turn.
    let loop: EventLoopThread
    var engine: WorkerEngine!

    // Loop-thread state.
    var socket: ZMQSocket?
    /// Messages not sent yet, each as its frames: the envelope, then results' encoded photos.
    var unsent: [[Data]] = []
    /// Reports gathered during this turn of the loop, sent when it ends.
    var reports = ReportBatch()
    var heartbeatSequence: UInt64 = 0
    var lastHeartbeatSent: MonotonicInstant?
    /// When the socket was last opened afresh because the coordinator fell silent; loop thread.
    var lastReopened: MonotonicInstant?
    /// The protocol: epochs, what to believe and in what order, the coordinator's settings, the
    /// hello, credit and heartbeat it says, the coordinator's silence (times on the monotonic
    /// clock, as every deadline: a wall clock step must not silence a peer).
    var session: WorkerSession
    /// New for each process (each node): tells the coordinator a restart from a reconnect.
    let incarnation = UUID().uuidString
    /// The connection's events: each new connection (see `SelfConnectionGuard`) and, with
    /// CURVE, a refused handshake, which libzmq never retries by itself.
    var monitor: SocketMonitor?
    var refusalLogged = false
    /// After the coordinator refused this worker's protocol version: when to say hello again, and
    /// the reason last logged (each new one is logged once).
    var helloAfterRefusal: MonotonicInstant?
    var lastRefusal: String?
    var selfConnection = SelfConnectionGuard()
    /// Which coordinator endpoint the socket talks to, and when it may try the next one.
    var rotation: EndpointRotation
    /// After moving to an endpoint tried a moment ago: when to open the socket to it (nil: not
    /// waiting). Until then there is no socket, and what is sent waits in `unsent`.
    var openMovedSocketAt: MonotonicInstant?
    /// The moves logged since a coordinator last answered (from and why), each logged once, so
    /// a turn through endpoints that all refuse does not fill the log.
    var movesLogged: Set<String> = []
    /// The drain under way or ended (nil: none asked for); loop thread.
    var drain: DrainState?

    /// Stage progress from operation threads, sent in one batch by the loop.
    let pendingProgress = MPSCQueue<Photocluster_V1_StageProgress>()
    /// Photos' memory grants, sent like progress (stage threads put into it).
    let pendingAdmissions = MPSCQueue<Photocluster_V1_PhotoAdmitted>()

    /// Prometheus metrics: recorded from stage threads and the loop (the handles are thread-safe).
    public let metrics = WorkerMetrics()
    /// Lines worth an operator's attention, with `job` and `photo` metadata. Set it before
    /// `start()`; the default discards everything (the embedded cluster stays quiet).
    public var logger = Logger(label: "photocluster.worker", factory: { _ in SwiftLogNoOpLogHandler() })

    public init(configuration: WorkerConfiguration, context: ZMQContext) {
        self.configuration = configuration
        self.context = context
        self.loop = EventLoopThread(name: "worker \(configuration.workerID)")
        self.session = WorkerSession(
            heartbeatInterval: configuration.heartbeatInterval, heartbeatLiveness: configuration.heartbeatLiveness, window: configuration.window)
        self.rotation = EndpointRotation(configuration.coordinatorEndpoints)
        self.endpointInUse = LockedBox(configuration.coordinatorEndpoints[0])
        self.engine = WorkerEngine(
            configuration: configuration.engine,
            filters: configuration.filters,
            onStage: { [weak self] work, stage, bytes, pixels, seconds in
                self?.stageFinished(work, stage, bytes: bytes, pixels: pixels, seconds: seconds)
            },
            onIncident: { [weak self] work, incident in self?.record(incident, of: work) },
            onAdmitted: { [weak self] work, grant in self?.admitted(work, grant: grant) },
            onOutcome: { [weak self] work, outcome in self?.finished(work, outcome) }
        )
    }

    public var inFlightCount: Int { engine.inFlightCount }

    /// Connects (libzmq keeps retrying until the coordinator is there) and says hello.
    public func start() throws {
        // S3's own words and the access key id go to this worker's log, never to clients.
        let s3Logger = logger
        S3Diagnostics.setSink { s3Logger.warning("\($0)") }
        try openSocket()
        // A fine clock, so the interval can follow the coordinator's welcome.
        loop.every(0.05) { [unowned self] in
            if selfConnection.shouldReconnect() { reconnect() }
            if let at = openMovedSocketAt, MonotonicInstant.now >= at { openMovedSocket() }
            if let at = helloAfterRefusal, MonotonicInstant.now >= at {
                helloAfterRefusal = nil
                sayHello()
            }
            sendPendingProgress()
            checkDrain()
            if lastHeartbeatSent.map({ MonotonicInstant.now.seconds(since: $0) >= session.heartbeatInterval }) ?? true { heartbeat() }
        }
        loop.post { [unowned self] in sayHello() }
        loop.atEndOfEachTurn { [unowned self] in sendReports() }
        loop.start { [unowned self] in
            // Give the goodbye and the handed-back photos a moment to leave before closing.
            try? self.socket?.setLinger(milliseconds: 1000)
            self.monitor?.close()
            self.socket?.close()
            self.socket = nil
        }
    }

    /// The coordinator endpoint the worker talks to now (or is about to); loop thread.
    var coordinatorEndpoint: String { rotation.current }

    /// The coordinator endpoint the worker's socket connects to now (the first of the list
    /// before `start()`); from any thread.
    public var coordinatorEndpointInUse: String { endpointInUse.current }
    /// Written by the loop thread as it opens each socket.
    private let endpointInUse: LockedBox<String>

    /// A new DEALER and its monitor, connecting to the current coordinator endpoint and watched
    /// by the loop. Before `start()` or on the loop thread.
    func openSocket() throws {
        let socket = try ZMQSocket(context: context, kind: .dealer)
        // With CURVE, an id no other key can claim (new for each socket), so the coordinator's
        // messages for this worker reach no one else.
        try socket.setRoutingID(RoutingIdentity.worker(named: configuration.workerID, secret: configuration.curve != nil))
        try socket.setMaxMessageSize(256 << 20)
        try socket.setHeartbeat(intervalMs: 1000, timeoutMs: 3000, ttlMs: 3000)
        try socket.setReconnectInterval(initialMs: 100, maxMs: 2000)
        if let curve = configuration.curve {
            try socket.makeCurveClient(serverPublicKey: curve.serverPublicKey, keys: curve.keys)
        }
        var events: SocketMonitor.Events = configuration.curve == nil ? .connected : [.connected, .handshakeFailed]
        // With somewhere else to go, a refused or dropped connection is the sign to go there.
        if rotation.canMove { events.formUnion([.connectRetried, .disconnected]) }
        let monitor = try SocketMonitor(socket: socket, context: context, events: events)
        try socket.connect(rotation.current)
        rotation.tried(at: .now)
        endpointInUse.withLock { $0 = rotation.current }
        self.socket = socket
        self.monitor = monitor
        loop.watch(monitor.eventSocket) { [unowned self] _ in connectionEvents() }
        loop.watch(socket) { [unowned self] socket in receiveAll(from: socket) }
    }

    /// Closes the socket unread (its linger is 0: what waits to leave is dropped) and its monitor.
    func closeSocket() {
        guard let socket, let monitor else { return }
        loop.unwatch(monitor.eventSocket)
        loop.unwatch(socket)
        monitor.close()
        socket.close()
        self.socket = nil
        self.monitor = nil
    }

    /// Stops taking work, cancels what is held, tells the coordinator, and closes the socket.
    public func stop() {
        engine.shutdown()
        loop.post { [unowned self] in
            sendPendingProgress()
            var goodbye = Photocluster_V1_WorkerGoodbye()
            goodbye.handedBack = []
            send(.goodbye(goodbye))
        }
        loop.stop()
    }
}

extension Photocluster_V1_OutputFormat {
    /// The format a result is in (never `.keep`).
    init(_ format: ImageFormat) {
        switch format {
        case .jpeg: self = .jpeg
        case .png: self = .png
        case .webp: self = .webp
        case .avif: self = .avif
        case .heif, .tiff, .gif, .jxl: self.init(format.keptAs)  // never a result's format: kept as these
        }
    }
}
