import Foundation
import Logging
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterMetrics
import PhotoClusterProto
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
    private let context: ZMQContext
    /// Internal, not private: tests hold it to make messages arrive in one turn.
    let loop: EventLoopThread
    private var engine: WorkerEngine!

    // Loop-thread state.
    private var socket: ZMQSocket?
    /// Messages not sent yet, each as its frames: the envelope, then results' encoded photos.
    private var unsent: [[Data]] = []
    /// Reports gathered during this turn of the loop, sent when it ends.
    private var reports = ReportBatch()
    /// On the monotonic clock, as every deadline: a wall clock step must not silence a peer.
    private var lastHeardFromCoordinator = MonotonicInstant.now
    private var heartbeatSequence: UInt64 = 0
    private var lastHeartbeatSent: MonotonicInstant?
    /// The coordinator's heartbeat settings (from its welcome) win over our own, so it never
    /// declares us lost for beating too slowly.
    private var heartbeatInterval: TimeInterval
    private var heartbeatLiveness: Int
    /// Per job, the newest control epoch seen; a job the coordinator closes is forgotten.
    private var newestEpoch: [String: UInt64] = [:]
    private var connectedTo: String?
    /// New for each process (each node): tells the coordinator a restart from a reconnect.
    private let incarnation = UUID().uuidString
    /// The newest assignment sequence accounted for since the last welcome: an assignment's own,
    /// or one a coordinator heartbeat names (every assignment before it has arrived or never
    /// will). Heartbeats report it with the photos held, so the coordinator finds lost ones.
    private var assignSequenceSeen: UInt64 = 0
    /// The largest result the coordinator takes (from its welcome): a larger one fails its photo
    /// here, since a message over the coordinator's limit is dropped with everything beside it.
    private var resultLimit = ResultSizeLimit.defaultBytes
    /// The connection's events: each new connection (see `SelfConnectionGuard`) and, with
    /// CURVE, a refused handshake, which libzmq never retries by itself.
    private var monitor: SocketMonitor?
    private var refusalLogged = false
    private var selfConnection = SelfConnectionGuard()

    /// Stage progress from operation threads, sent in one batch by the loop.
    private let pendingProgress = MPSCQueue<Photocluster_V1_StageProgress>()

    /// Prometheus metrics: recorded from stage threads and the loop (the handles are thread-safe).
    public let metrics = WorkerMetrics()
    /// Lines worth an operator's attention, with `job` and `photo` metadata. Set it before
    /// `start()`; the default discards everything (the embedded cluster stays quiet).
    public var logger = Logger(label: "photocluster.worker", factory: { _ in SwiftLogNoOpLogHandler() })

    public init(configuration: WorkerConfiguration, context: ZMQContext) {
        self.configuration = configuration
        self.context = context
        self.loop = EventLoopThread(name: "worker \(configuration.workerID)")
        self.heartbeatInterval = configuration.heartbeatInterval
        self.heartbeatLiveness = configuration.heartbeatLiveness
        self.engine = WorkerEngine(
            configuration: configuration.engine,
            filters: configuration.filters,
            onStage: { [weak self] work, stage, bytes, pixels, seconds in
                self?.stageFinished(work, stage, bytes: bytes, pixels: pixels, seconds: seconds)
            },
            onIncident: { [weak self] work, incident in self?.record(incident, of: work) },
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
            sendPendingProgress()
            if lastHeartbeatSent.map({ MonotonicInstant.now.seconds(since: $0) >= heartbeatInterval }) ?? true { heartbeat() }
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

    /// A new DEALER and its monitor, connecting to the coordinator and watched by the loop.
    /// Before `start()` or on the loop thread.
    private func openSocket() throws {
        let socket = try ZMQSocket(context: context, kind: .dealer)
        try socket.setRoutingID(configuration.workerID)
        try socket.setMaxMessageSize(256 << 20)
        try socket.setHeartbeat(intervalMs: 1000, timeoutMs: 3000, ttlMs: 3000)
        try socket.setReconnectInterval(initialMs: 100, maxMs: 2000)
        if let curve = configuration.curve {
            try socket.makeCurveClient(serverPublicKey: curve.serverPublicKey, keys: curve.keys)
        }
        let monitor = try SocketMonitor(socket: socket, context: context, events: configuration.curve == nil ? .connected : [.connected, .handshakeFailed])
        try socket.connect(configuration.coordinatorEndpoint)
        self.socket = socket
        self.monitor = monitor
        loop.watch(monitor.eventSocket) { [unowned self] _ in connectionEvents() }
        loop.watch(socket) { [unowned self] socket in receiveAll(from: socket) }
    }

    /// Closes the socket unread (its linger is 0: what waits to leave is dropped) and its monitor.
    private func closeSocket() {
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

    // MARK: - Loop thread

    private func sayHello() {
        var hello = Photocluster_V1_WorkerHello()
        hello.protocolVersion = UInt32(Photocluster_V1_ProtocolVersion.current.rawValue)
        hello.workerID = configuration.workerID
        hello.host = ProcessInfo.processInfo.hostName
        hello.concurrency = UInt32(configuration.engine.concurrency)
        hello.filters = configuration.filters.descriptors.map(FilterInfoMapping.info)
        hello.inFlight = engine.inFlightKeys.map { key in .with { $0.jobID = key.job; $0.photoIndex = key.photo } }
        hello.incarnation = incarnation
        send(.hello(hello))
        var credit = Photocluster_V1_Credit()
        // Every graph held returns its credit when it ends, a successor waiting behind a
        // cancelled photo too.
        credit.grant = UInt32(max(0, configuration.window - engine.heldGraphCount))
        send(.credit(credit))
        lastHeardFromCoordinator = .now
    }

    /// Reads everything waiting and handles control first: the batch's cancels, suspensions and
    /// priority changes are applied as they are read and acknowledged (once per job, at its
    /// newest epoch) before any graph of the batch is built or anything else handled, in order.
    /// Epochs keep the reordering safe: a graph sent before a change in the same batch is older
    /// than it, and is handed back rather than started. Only a cancel of a photo whose graph
    /// came earlier in the batch at the cancel's own epoch (never sent by a coordinator, which
    /// bumps the epoch for every cancel) waits for what came before it, as it would in order.
    private func receiveAll(from socket: ZMQSocket) {
        var deferred: [Photocluster_V1_CoordinatorToWorker] = []
        var acks: [String: UInt64] = [:]
        // A connection's event is queued before its first message: read before every message,
        // whatever the poll said, so a connection that reached the worker itself is never read.
        while connectionEventsLeaveSocketOpen(socket), let frames = try? socket.receive(dontWait: true) {
            guard let payload = frames.last, let message = Envelope.decode(Photocluster_V1_CoordinatorToWorker.self, from: payload) else {
                continue  // a frame that does not parse is dropped, never trusted
            }
            lastHeardFromCoordinator = .now
            guard message.isControl else {
                deferred.append(message)
                continue
            }
            if let cancel = message.cancelTarget, deferred.contains(where: { cancel.covers($0) }) {
                for earlier in deferred { handle(earlier) }
                deferred.removeAll()
            }
            applyControl(message, acks: &acks)
        }
        for (job, epoch) in acks { acknowledge(job: job, epoch: epoch) }
        // The engine's queue thread does the rest of the control's work once the acks are out.
        if !acks.isEmpty { engine.wakeQueueThread() }
        for message in deferred { handle(message) }
    }

    /// Applies a control message of an epoch not older than the job's newest and notes the
    /// acknowledgement it owes.
    private func applyControl(_ message: Photocluster_V1_CoordinatorToWorker, acks: inout [String: UInt64]) {
        let job: String
        let epoch: UInt64
        let apply: () -> Void
        switch message.body {
        case .cancel(let cancel):
            (job, epoch) = (cancel.jobID, cancel.epoch)
            apply = { self.engine.cancel(job: cancel.jobID, photos: cancel.wholeJob ? nil : Set(cancel.photoIndices), wakeQueueThread: false) }
        case .suspend(let suspend):
            (job, epoch) = (suspend.jobID, suspend.epoch)
            apply = { self.engine.setSuspended(job: suspend.jobID, true, wakeQueueThread: false) }
        case .resume(let resume):
            (job, epoch) = (resume.jobID, resume.epoch)
            apply = { self.engine.setSuspended(job: resume.jobID, false, wakeQueueThread: false) }
        case .reprioritise(let update):
            (job, epoch) = (update.jobID, update.epoch)
            apply = {
                for photo in update.updates {
                    self.engine.reprioritise(job: update.jobID, photo: photo.photoIndex, band: photo.band, wakeQueueThread: false)
                }
            }
        case .control(let control):
            (job, epoch) = (control.jobID, control.epoch)
            apply = {
                if !control.cancel.isEmpty { self.engine.cancel(job: control.jobID, photos: Set(control.cancel), wakeQueueThread: false) }
                for photo in control.priorities {
                    self.engine.reprioritise(job: control.jobID, photo: photo.photoIndex, band: photo.band, wakeQueueThread: false)
                }
                self.engine.setSuspended(job: control.jobID, control.suspended, wakeQueueThread: false)
            }
        default:
            return
        }
        guard acceptEpoch(epoch, job: job) else { return }
        apply()
        acks[job] = max(acks[job] ?? 0, epoch)
    }

    private func handle(_ message: Photocluster_V1_CoordinatorToWorker) {
        switch message.body {
        case .assign(let assign):
            assignSequenceSeen = max(assignSequenceSeen, assign.sequence)
            start(assign.graph)
        case .assignBatch(let batch):
            assignSequenceSeen = max(assignSequenceSeen, batch.sequence)
            for graph in batch.graphs { start(graph) }
        case .pleaseRegister:
            sayHello()
        case .dropStale(let drop):
            for photo in drop.photos { engine.cancel(job: photo.jobID, photos: [photo.photoIndex]) }
        case .welcome(let welcome):
            // A new registration: the coordinator counts its assignments from 1 again.
            assignSequenceSeen = 0
            if welcome.heartbeatIntervalMs > 0 {
                heartbeatInterval = min(configuration.heartbeatInterval, Double(welcome.heartbeatIntervalMs) / 1000)
            }
            if welcome.heartbeatLiveness > 0 { heartbeatLiveness = Int(welcome.heartbeatLiveness) }
            if welcome.maxResultBytes > 0 { resultLimit = Int64(clamping: welcome.maxResultBytes) }
            if connectedTo != welcome.coordinatorID {
                connectedTo = welcome.coordinatorID
                logger.info("registered with \(welcome.coordinatorID) at \(configuration.coordinatorEndpoint)")
            }
            if welcome.hasOpenJobs {
                let open = Set(welcome.openJobs.jobIds)
                newestEpoch = newestEpoch.filter { open.contains($0.key) }
                engine.closeJobs(except: open)
            }
        case .jobClosed(let closed):
            newestEpoch.removeValue(forKey: closed.jobID)
            engine.close(job: closed.jobID)
        case .heartbeat(let beat):
            assignSequenceSeen = max(assignSequenceSeen, beat.assignSequence)
        case .none:
            break
        case .cancel, .suspend, .resume, .reprioritise, .control:
            break  // control is applied by `applyControl` before anything else
        }
    }

    private func start(_ graph: Photocluster_V1_PhotoGraph) {
        if let newest = newestEpoch[graph.jobID], graph.epoch < newest {
            // Sent under an older viewport: do not start it, hand it straight back.
            finished(PhotoWork(graph: graph, filters: []), .cancelled(lastFinished: .unspecified))
        } else {
            engine.submit(graph)
        }
    }

    /// Control messages older than the newest seen for their job are ignored, so a late or
    /// reordered message cannot bring cancelled work back.
    private func acceptEpoch(_ epoch: UInt64, job: String) -> Bool {
        if let newest = newestEpoch[job], epoch < newest { return false }
        newestEpoch[job] = epoch
        return true
    }

    /// Acknowledges control ahead of every message still waiting to leave (results, progress).
    private func acknowledge(job: String, epoch: UInt64) {
        var ack = Photocluster_V1_ControlAck()
        ack.jobID = job
        ack.epoch = epoch
        // Control is timed by its acknowledgement: it leaves now, ahead of anything still
        // waiting to leave (results the socket could not take yet), in a message of its own.
        var message = Photocluster_V1_WorkerToCoordinator()
        message.body = .ack(ack)
        unsent.insert([Envelope.encode(message)], at: 0)
        flushUnsent()
    }

    /// Reads the connection's events; answers whether `socket` is still the one in use.
    private func connectionEventsLeaveSocketOpen(_ socket: ZMQSocket) -> Bool {
        connectionEvents()
        return socket === self.socket
    }

    /// The connection's events, read before its messages.
    private func connectionEvents() {
        for event in monitor?.poll() ?? [] {
            if case .connected(let endpoint, let descriptor) = event {
                guard case .itself(let warning) = selfConnection.connected(descriptor: descriptor, endpoint: endpoint) else { continue }
                if let warning { logger.warning("\(warning)") }
                return closeSocket()
            } else if event.isHandshakeFailure, !refusalLogged {
                refusalLogged = true
                let key = configuration.curve?.keys.publicKey ?? ""
                let advice = "add it to the coordinator's authorized keys as `worker \(key) NAME` (or its .pub file in a worker/ directory there; "
                    + "the coordinator reloads them on SIGHUP), then restart this worker"
                logger.error("the coordinator refused this worker's key \(key): it is not authorized as a worker (not listed, listed as a client, or removed); \(advice)")
            }
        }
    }

    /// Connects again after dropping a connection that reached the worker itself; what was
    /// sent over that one never left, so the worker introduces itself again.
    private func reconnect() {
        do {
            try openSocket()
            sayHello()
        } catch {
            logger.error("cannot connect to \(configuration.coordinatorEndpoint) again: \(error); restart this worker")
        }
    }

    private func heartbeat() {
        lastHeartbeatSent = .now
        flushUnsent()
        heartbeatSequence += 1
        var beat = Photocluster_V1_Heartbeat()
        beat.sequence = heartbeatSequence
        beat.sentUnixMs = UInt64(Date().timeIntervalSince1970 * 1000)
        beat.inFlight = UInt32(engine.inFlightCount)
        beat.assignSequence = assignSequenceSeen
        beat.held = engine.heldKeys.map { key in .with { $0.jobID = key.job; $0.photoIndex = key.photo } }
        beat.freeSlots = UInt32(max(0, configuration.window - engine.heldGraphCount))
        let loads = engine.stageLoads()
        beat.stages = loads.sorted { $0.key.rawValue < $1.key.rawValue }.map { stage, load in
            .with {
                $0.stage = stage
                $0.queued = UInt32(load.queued)
                $0.running = UInt32(load.running)
            }
        }
        metrics.load(
            Dictionary(uniqueKeysWithValues: loads.map { ($0.key.metricLabel, $0.value) }), photosInFlight: Int(beat.inFlight))
        if let memory = engine.memory {
            beat.memoryLimitBytes = UInt64(memory.limitBytes)
            beat.memoryBudgetBytes = UInt64(memory.budgetBytes)
            beat.memoryInUseBytes = UInt64(memory.inUseBytes)
            beat.photosWaitingForMemory = UInt32(memory.waitingPhotos)
            metrics.memory(
                limit: memory.limitBytes, budget: memory.budgetBytes, inUse: memory.inUseBytes, peakInUse: memory.peakInUseBytes,
                waiting: memory.waitingPhotos, waitsTotal: memory.waitsTotal, refusalsTotal: memory.refusalsTotal)
        }
        send(.heartbeat(beat))
        let silence = MonotonicInstant.now.seconds(since: lastHeardFromCoordinator)
        if silence > heartbeatInterval * Double(heartbeatLiveness) {
            if connectedTo != nil {
                metrics.coordinatorSilent()
                logger.warning("no word from the coordinator for \(String(format: "%.1f", silence)) s; saying hello again")
                connectedTo = nil
            }
            // The coordinator may have restarted and forgotten us: introduce ourselves again.
            sayHello()
        }
    }

    /// Sends a message after the reports gathered so far, so the coordinator hears everything in
    /// the order it happened.
    private func send(_ body: Photocluster_V1_WorkerToCoordinator.OneOf_Body) {
        sendReports()
        var message = Photocluster_V1_WorkerToCoordinator()
        message.body = body
        unsent.append([Envelope.encode(message)])
        flushUnsent()
    }

    /// Sends the reports gathered during this turn as one message (the loop calls it as each turn
    /// ends); encoded photos follow the envelope as frames of their own, so they are never copied
    /// into (and out of) a protobuf message.
    private func sendReports() {
        guard let frames = reports.take() else { return }
        unsent.append(frames)
        flushUnsent()
    }

    /// Sends the progress gathered since the last batch. Runs before every outcome, so the
    /// coordinator always learns what a worker holds before it learns how the photo ended.
    private func sendPendingProgress() {
        for progress in pendingProgress.takeAll() { reports.add(.progress(progress)) }
    }

    private func flushUnsent() {
        guard let socket else { return }
        while let next = unsent.first {
            do {
                try socket.send(next, dontWait: true)
                unsent.removeFirst()
            } catch {
                return  // not connected yet or peer busy: retried on the next heartbeat
            }
        }
    }

    // MARK: - Engine callbacks (operation threads)

    private func stageFinished(_ work: PhotoWork, _ stage: Photocluster_V1_Stage, bytes: UInt64, pixels: UInt64, seconds: Double) {
        metrics.stageFinished(stage.metricLabel, seconds: seconds, bytes: bytes, pixels: pixels)
        // The result itself tells the coordinator that encoding is done.
        guard stage != .encode else { return }
        var progress = Photocluster_V1_StageProgress()
        progress.jobID = work.graph.jobID
        progress.photoIndex = work.graph.photoIndex
        progress.stage = stage
        progress.bytes = bytes
        progress.pixels = pixels
        progress.seconds = seconds
        progress.attempt = work.graph.attempt
        pendingProgress.put(progress)
    }

    /// Counts the incident and logs it at warning, naming the photo, its job and the plugin.
    private func record(_ incident: WorkerIncident, of work: PhotoWork) {
        var metadata: Logger.Metadata = ["job": "\(work.graph.jobID)", "photo": "\(work.graph.photoIndex)", "name": "\(work.graph.name)"]
        switch incident {
        case .plugin(let failure):
            metadata["plugin"] = "\(failure.plugin)"
            metadata["filter"] = "\(failure.filter)"
            switch failure.kind {
            case .crashed: metrics.pluginCrashed(plugin: failure.plugin, filter: failure.filter)
            case .timedOut: metrics.stageTimedOut("filter")
            case .ignoredCancellation, .brokeProtocol, .unavailable: break
            }
            logger.warning("photo \(work.graph.name) of job \(work.graph.jobID): \(failure)", metadata: metadata)
        case .stageTimedOut(let stage, let name, let limit):
            metrics.stageTimedOut(stage.metricLabel)
            logger.warning(
                "photo \(work.graph.name) of job \(work.graph.jobID): \(name) \(StageTimeLimit.overrun(limit))", metadata: metadata)
        }
    }

    private func finished(_ work: PhotoWork, _ outcome: PhotoWork.Outcome) {
        let graph = work.graph
        let body: Photocluster_V1_WorkerReport.OneOf_Body
        let photo: Data?
        switch outcome {
        case .encoded(let data, let format, let width, let height):
            var result = Photocluster_V1_PhotoResult()
            result.jobID = graph.jobID
            result.photoIndex = graph.photoIndex
            result.attempt = graph.attempt
            result.format = Photocluster_V1_OutputFormat(format)
            result.width = UInt32(width)
            result.height = UInt32(height)
            // A graph with an output place was stored by this worker: the coordinator hears only where.
            if let locations = work.read({ $0.storedAt }) { result.storedAt = locations }
            body = .result(result)
            photo = result.storedAt.isEmpty ? data : nil
        case .failed(let stage, let stageName, let reason, let transient):
            body = .failure(failed(graph, at: stage, stageName, reason: reason, transient: transient))
            photo = nil
        case .cancelled(let lastFinished):
            var cancelled = Photocluster_V1_PhotoCancelled()
            cancelled.jobID = graph.jobID
            cancelled.photoIndex = graph.photoIndex
            cancelled.lastFinished = lastFinished
            cancelled.attempt = graph.attempt
            body = .cancelled(cancelled)
            photo = nil
            metrics.photoEnded(outcome: "cancelled")
        }
        let spans = work.spansReport()
        loop.post { [unowned self] in
            sendPendingProgress()
            if let spans { reports.add(.spans(spans)) }
            if let photo, photo.count > resultLimit {
                // Trying again would make the same result.
                let reason = ResultSizeLimit.refusal(bytes: photo.count, limit: resultLimit)
                reports.add(.failure(failed(graph, at: .encode, "result", reason: reason, transient: false)))
            } else {
                if case .result = body { metrics.photoEnded(outcome: "succeeded") }
                reports.add(body, photo: photo)
            }
            reports.credit += 1
        }
    }

    /// The report of a photo that failed, counted and logged.
    private func failed(
        _ graph: Photocluster_V1_PhotoGraph, at stage: Photocluster_V1_Stage, _ stageName: String, reason: String, transient: Bool
    ) -> Photocluster_V1_PhotoFailure {
        metrics.photoEnded(outcome: "failed")
        logger.info("photo failed at \(stageName): \(reason)", metadata: ["job": "\(graph.jobID)", "photo": "\(graph.photoIndex)"])
        var failure = Photocluster_V1_PhotoFailure()
        failure.jobID = graph.jobID
        failure.photoIndex = graph.photoIndex
        failure.attempt = graph.attempt
        failure.stage = stage
        failure.stageName = stageName
        failure.reason = reason
        failure.transient = transient
        return failure
    }
}

extension Photocluster_V1_OutputFormat {
    /// The format a result is in (never `.keep`).
    init(_ format: ImageFormat) {
        switch format {
        case .jpeg: self = .jpeg
        case .png: self = .png
        case .webp: self = .webp
        }
    }
}
