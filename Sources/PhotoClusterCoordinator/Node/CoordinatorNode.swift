import Foundation
import Logging
import PhotoClusterCore
import PhotoClusterMetrics
import PhotoClusterProto
import PhotoClusterScheduling
import PhotoClusterTransport

/// The coordinator: a ROUTER for workers, a ROUTER for clients, the jobs, and the dispatcher
/// that hands photo graphs to workers as they grant credit.
///
/// Everything mutable here (sockets, jobs, workers) belongs to the loop thread; other threads
/// only call `start`, `stop` and `snapshot`, which go through the loop.
public final class CoordinatorNode: @unchecked Sendable {
    public let configuration: CoordinatorConfiguration
    public let coordinatorID = "coordinator-\(UUID().uuidString.prefix(8).lowercased())"
    private let context: ZMQContext
    let loop = EventLoopThread(name: "coordinator")
    /// Writes results off the loop thread, so file creation never holds up dispatch, and off
    /// libdispatch's pool, so a write waiting for the disk never holds up a photo's stages. A
    /// thread stuck past `writeTimeout` gets another beside it (see `expireStuckWrites`).
    let writers: BlockingWorkThreads
    var zap: ZAPHandler?

    /// The scheduling: jobs, workers, attempts, credit (see `CoordinatorCore`). The node is its
    /// shell: it owns the sockets, the journal, the writers and the clients, and does what the
    /// core decides.
    private(set) var core: CoordinatorCore!
    /// The loop's side of the core (see `tellCore`).
    let coreDriver = CoreDriver()

    // Loop-thread state.
    var workerSocket: ZMQSocket!
    var clientSocket: ZMQSocket!
    /// Who hears about each job, and how much.
    var subscribers = SlotTable<String, JobSubscribers>()
    /// The jobs the core was last told a client hears of photo by photo (`noteEveryPhotoAudience`).
    var jobsToldEveryPhoto: Set<String> = []
    /// Jobs whose paced counts wait for the timer (see `JobSubscribers`).
    var jobsWithWaitingCounts: Set<String> = []
    /// Messages for clients whose connections are full, sent as they read.
    var clientOutbox = ClientOutbox()
    var droppedFrames = 0
    /// Submitted jobs whose directory is being opened.
    var preparingDirectories: [UUID: PreparingDirectory] = [:]
    /// Results of this turn, handed to the writer threads when it ends.
    var writesToSubmit: [ResultWrite] = []
    /// Rejected reports, logged at most once per worker per interval.
    var rejectionLog = RejectionLog()
    /// The authorized keys in force, with their roles; nil without CURVE (everything open).
    var authorizedKeys: AuthorizedKeys?
    /// The key of each client connection heard from lately, to find a removed key's connections.
    var clientKeys: [Data: (key: String, lastSeen: Date)] = [:]
    /// The authorized keys as the HTTP API's threads read them to look tokens up (nil without
    /// CURVE); replaced with the loop's copy on every reload.
    let tokenKeys = LockedBox<AuthorizedKeys?>(nil)
    /// Clients inside this process (the HTTP API's requests and event streams), by the routing
    /// id that stands for them (loop thread; see `CoordinatorNode+LocalClients.swift`).
    var localClients: [Data: LocalClient] = [:]
    /// Connections to drop once the notice sent to them has had a moment to leave.
    var evictions: [(endpoint: ServerEndpoint, identity: Data, due: Date)] = []
    var evictors: [ServerEndpoint: PeerEvictor] = [:]
    /// Viewport changes waiting for the end of the turn, and clients' allowances (loop thread).
    lazy var viewportInbox = ViewportInbox(perSecond: configuration.limits.viewportChangesPerSecond)
    /// Viewport requests answered once their turn's viewports are applied.
    var viewportReplies: [(client: Data, requestID: UInt64, requester: Requester, job: String)] = []
    /// A flood of viewport changes was seen in the last second (see `returnMemoryAfterFlood`).
    var floodSeen = false
    /// Connections refused for holding a routing id registered with another key (loop thread).
    var impostorsRefused = 0
    /// Each worker's routing id, the one its registered key spoke from (loop thread; see
    /// `CoordinatorNode+Routes`).
    var workerRoutes: [String: Data] = [:]
    /// Open output directories of unfinished jobs (absent for a job whose directory could not
    /// be opened again after a restart: `outputProblems` says why).
    var outputDirectories: [String: JobDirectory] = [:]
    var outputProblems: [String: String] = [:]
    /// `--output-root`, resolved; nil writes where clients say (the embedded cluster).
    var outputRoot: OutputRoot?
    /// Writes finished jobs' `index.json` where their workers stored the outputs.
    let indexStore: IndexStore
    /// The durable record of jobs and photos, with `--state`.
    var journal: Journal?
    /// The lease this coordinator leads by, with a shared journal (see `CoordinatorNode+Leadership`).
    var leaseKeeper: LeaseKeeper?
    /// Told once, from any thread, when this coordinator stops leading (another took over, its
    /// lease ran out, a write was fenced): it acts no more, and its owner should stop it. Set
    /// before `start()`.
    public var onLeadershipLost: (@Sendable (String) -> Void)?
    /// What finished, second by second: the rates in status replies and the dashboard's charts.
    var history = ThroughputHistory()
    var recentFailures = RecentFailures()
    /// The stages workers ran lately, for the dashboard's task stream and `cluster trace`. A stored
    /// property, not `lazy`: a lazy one is mutated through a copy, so each span recorded would
    /// copy the whole ring.
    var taskStream: TaskStream
    /// Prometheus metrics; their handles are changed on the loop thread only.
    let metrics = CoordinatorMetrics()
    public let startedAt = Date()
    /// For the uptime, which a wall clock step must not change.
    let startedMonotonic = MonotonicInstant.now

    /// Lines worth an operator's attention, with `job`, `photo` and `worker` metadata. Set it
    /// before `start()`; the default discards everything (the embedded cluster stays quiet).
    public var logger = Logger(label: "photocluster.coordinator", factory: { _ in SwiftLogNoOpLogHandler() })

    /// `--output-root` as resolved (links followed), once started; nil without one.
    public var outputRootPath: String? { outputRoot?.path.path }

    public private(set) var boundWorkerEndpoint = ""
    public private(set) var boundClientEndpoint = ""

    public init(configuration: CoordinatorConfiguration, context: ZMQContext) {
        self.configuration = configuration
        self.context = context
        taskStream = TaskStream(capacity: configuration.taskStreamSpans)
        writers = BlockingWorkThreads(name: "writer", limit: 4, stuckAfter: configuration.writeTimeout, maxThreads: 64,
            priority: configuration.writerPriority)
        indexStore = IndexStore(s3: configuration.s3, sharedRoots: configuration.sharedRoots, writers: writers)
        let settings = CoordinatorCore.Settings(
            coordinatorID: coordinatorID, heartbeatInterval: configuration.heartbeatInterval, heartbeatLiveness: configuration.heartbeatLiveness,
            maxAttempts: configuration.maxAttempts, retryBackoff: configuration.retryBackoff, maxWorkerLosses: configuration.maxWorkerLosses,
            workerBudgets: configuration.workerBudgets,
            resultLimit: configuration.workerBudgets.resultLimit(messageLimit: configuration.maxMessageBytes),
            finishedJobsKept: configuration.finishedJobsKept)
        core = CoordinatorCore(settings: settings, now: .now)
    }

    /// The journal `--state` names: a PostgreSQL database or a directory; nil without one.
    private func openJournal() throws -> Journal? {
        if let term = configuration.leadership {
            let database = try PostgresDatabase(uri: term.database)
            database.fencingToken = term.lease.token
            try database.limitIdleTransactions(to: term.leaseSeconds)
            // The standby that won the term made the tables before its first acquire.
            return try Journal(postgres: database, makingSchema: false)
        }
        if let uri = configuration.stateDatabase { return try Journal(postgres: PostgresDatabase(uri: uri)) }
        return try configuration.stateDirectory.map { try Journal(directory: $0) }
    }

    /// Opens the journal (restoring its jobs), binds both endpoints (so errors such as a busy
    /// port surface here) and starts the loop.
    public func start() throws {
        if let root = configuration.outputRoot { outputRoot = try OutputRoot(root) }
        if let term = configuration.leadership { startKeepingLease(term) }
        if let journal = try openJournal() {
            let restored = try journal.loadJobs()
            for job in restored where !job.isFinished {
                log("job \(job.id) restored from the journal: \(job.progress.done)/\(job.total) photos settled", job: job.id)
                if job.place == nil { reopenOutputDirectory(of: job) }
            }
            self.journal = journal
            // The core journals each open job's new epoch, forgets the finished jobs past
            // retention and finishes those that stopped between their last photo and their end;
            // the epochs are durable before anything is sent.
            tellCore(.jobsRestored(restored, finishOrder: try journal.idsInFinishOrder()))
            if journal.database.batchIsOpen { try journal.database.commitBatch() }
        }
        if let curve = configuration.curve {
            // The handler must be in place before a CURVE server binds, or anyone who knows
            // the server's public key gets in.
            let zap = ZAPHandler(context: context, authorizedKeys: curve.authorized) { [weak self] decision in
                if !decision.accepted { self?.loop.post { self?.connectionRefused(decision) } }
            }
            try zap.start()
            self.zap = zap
            authorizedKeys = curve.authorized
            tokenKeys.withLock { $0 = curve.authorized }
            describeAuthorizedKeys(curve.authorized)
        } else if ![configuration.workerEndpoint, configuration.clientEndpoint].allSatisfy({ $0.hasPrefix("inproc://") }) {
            log(.warning, "no CURVE keys: any process that reaches the endpoints may join as a worker, and any client may see and act on every job")
        }
        let workerSocket = try ZMQSocket(context: context, kind: .router)
        // With CURVE keys a routing id is never handed to another connection: no key can take
        // the connection of another (see `CoordinatorNode+Routes`).
        try workerSocket.makeStrictRouter(handover: configuration.curve == nil)
        try secure(workerSocket, as: .workers)
        try workerSocket.setMaxMessageSize(configuration.maxMessageBytes)
        // Dead connections are torn down by TCP keepalive, not ZMTP heartbeats (see `setKeepalive`).
        try workerSocket.setKeepalive(idleSeconds: 5, intervalSeconds: 1, count: 3, unacknowledgedSeconds: 30)
        try workerSocket.bind(configuration.workerEndpoint)
        let clientSocket = try ZMQSocket(context: context, kind: .router)
        try clientSocket.makeStrictRouter(handover: configuration.curve == nil)
        try secure(clientSocket, as: .clients)
        try clientSocket.setMaxMessageSize(configuration.limits.socketMessageBytes)
        try clientSocket.setKeepalive(idleSeconds: 5, intervalSeconds: 1, count: 3, unacknowledgedSeconds: 30)
        try clientSocket.bind(configuration.clientEndpoint)
        boundWorkerEndpoint = workerSocket.lastEndpoint ?? configuration.workerEndpoint
        boundClientEndpoint = clientSocket.lastEndpoint ?? configuration.clientEndpoint
        if configuration.curve != nil {
            evictors[.workers] = PeerEvictor()
            evictors[.clients] = PeerEvictor()
        }
        self.workerSocket = workerSocket
        self.clientSocket = clientSocket
        // Clients first: a viewport change read in the same turn as a burst of results goes
        // out to the workers before the results are handled.
        loop.watch(clientSocket) { [unowned self] socket in
            flushClientOutbox()
            while let message = try? socket.receiveWithUserID(dontWait: true) {
                if let identity = message.frames.first { evictors[.clients]?.note(identity, descriptor: message.descriptor) }
                receiveFromClient(message.frames, key: message.userID, arrivedAt: .now)
            }
        }
        loop.watch(workerSocket) { [unowned self] socket in
            // A bounded drain, so the graphs these messages free leave with the turn's end even
            // while workers keep sending; what is left is read on the next turn.
            for _ in 0..<Self.workerMessagesPerTurn {
                guard let message = try? socket.receiveWithUserID(dontWait: true) else {
                    tellCore(.workerMessagesDrained)
                    break
                }
                if let identity = message.frames.first { evictors[.workers]?.note(identity, descriptor: message.descriptor) }
                receiveFromWorker(message.frames, key: message.userID)
            }
        }
        // What a turn gathered leaves together when it ends: no timer holds it back.
        loop.atEndOfEachTurn { [unowned self] in
            applyPendingViewports()
            commitJournal()
            flushClientOutbox()
            submitQueuedWrites()
            tellCore(.turnEnded)
        }
        loop.every(configuration.heartbeatInterval) { [unowned self] in
            tellCore(.heartbeatTick(messagesWaiting: workerSocket.hasMessageWaiting))
        }
        // Retry back-offs are shorter than a heartbeat: release them on a finer clock.
        loop.every(0.05) { [unowned self] in
            tellCore(.retryTick)
            flushClientOutbox()
            evictDueConnections()
        }
        loop.every(1) { [unowned self] in
            closeSecond()
            returnMemoryAfterFlood()
            forgetQuietClients()
            forgetRoutesOfUnregisteredWorkers()
            expireStuckWrites()
        }
        loop.every(JobSubscribers.countsInterval) { [unowned self] in sendWaitingCounts() }
        loop.start { [unowned self] in
            // A loop ended because the lease lapsed writes nothing more.
            if !self.loop.endedByGate { self.commitJournal() }
            self.workerSocket.close()
            self.clientSocket.close()
        }
    }

    public func stop() {
        loop.stop()
        writers.stop()
        indexStore.shutdown()
        zap?.stop()
        // Last: a standby may take over the moment the lease is released.
        leaseKeeper?.release()
    }

    private func secure(_ socket: ZMQSocket, as endpoint: ServerEndpoint) throws {
        guard let curve = configuration.curve else { return }
        try socket.makeCurveServer(secretKey: curve.keys.secretKey, zapDomain: endpoint.zapDomain)
    }

    /// Runs `body` on the loop thread and waits for its answer (for status and tests).
    func onLoop<T>(_ body: @escaping () -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let result = LockedBox<T?>(nil)
        loop.post {
            result.withLock { $0 = body() }
            done.signal()
        }
        done.wait()
        return result.current!
    }

    /// Runs `body` on the loop thread and resumes with its answer, without blocking a thread
    /// of the caller's (the dashboard's handlers run on Swift concurrency's small pool).
    func onLoop<T: Sendable>(_ body: @escaping () -> T) async -> T {
        await withCheckedContinuation { continuation in
            loop.post { continuation.resume(returning: body()) }
        }
    }

    /// Connected workers: their in-flight counts, photos finished, and how many unsettled photos'
    /// intermediate results each holds.
    /// How many connections were refused for claiming a routing id registered with another key.
    public var refusedImpostorCount: Int { onLoop { self.impostorsRefused } }

    public func workerSnapshot() -> [(id: String, inFlight: Int, completed: UInt64, cached: Int)] {
        onLoop { self.workers.values.map { ($0.id, $0.inFlight.count, $0.completed, $0.cached.count) }.sorted { $0.id < $1.id } }
    }
}
