import Foundation
import PhotoClusterCore
import PhotoClusterDownload
import PhotoClusterImaging
import PhotoClusterPluginHost
import PhotoClusterProto
import PhotoClusterStorage

/// Runs photo graphs on per-job, per-stage `OperationQueue`s: download → decode → filters… →
/// encode, starting at the first stage whose result is not already in the cache.
///
/// Owns the queues, the cache and the in-flight map (behind a lock); every graph ends with
/// exactly one call of `onOutcome`, whatever happened to it.
///
/// The worker's loop calls in here, and it must never wait for a stage thread: stage threads
/// run at a low priority, and one preempted while it holds a lock makes whoever waits for that
/// lock wait until the scheduler gets round to it again (tens of milliseconds on a busy host,
/// measured). `OperationQueue` and `Operation` keep locks the stage threads take as operations
/// start and end, so every call that changes a queue or an operation (adding, cancelling,
/// suspending, re-prioritising) is made on the engine's queue thread instead. What the loop
/// does itself is lock-free: a cancel raises the photo's flag, a suspension closes the job's
/// gate (`JobGate`), and both hold from that moment.
public final class WorkerEngine: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Photos decoded, filtered and encoded at once (CPU-bound work), per job.
        public var concurrency: Int
        /// Transfers at once (I/O-bound: waiting costs no CPU).
        public var downloadSlots: Int
        public var maxPixels: Int
        public var downloadLimits: DownloadLimits
        /// Bytes of intermediate results kept for photos that come back.
        public var cacheBytes: Int
        /// Whether a finished photo's download stays in the cache, for a later job that asks for
        /// the same URL. A cluster that runs one job and stops (`cluster submit` without a
        /// coordinator) has no later job: there the kept bytes would only hold memory, and each
        /// download would land in memory new to the process, which the kernel zeroes first
        /// (about 5% of a 12-MP thumbnail's time).
        public var keepsFinishedDownloads = true
        /// Seconds a decode (JPEG; a PNG decode is bounded by `maxPixels`), each filter and an
        /// encode may run. Downloads have their own limits in `downloadLimits`.
        public var stageTimeout: TimeInterval
        /// The priority of the threads that decode, filter and encode (see `CPUStageOperation`).
        public var stagePriority: ThreadPriority

        /// Results as large as the sources the decoder takes (100 MP).
        public static let defaultMaxOutputPixels = ImageCodec.defaultMaxPixels
        /// Stage threads give way to the threads that wait for messages, by default.
        public static let defaultStagePriority = ThreadPriority.nice(19)
        /// S3 and shared directories, for `s3://` photos and outputs the worker stores itself.
        public var storage: WorkerStorage
        /// The bytes photos may hold at once (see `MemoryBudget`); nil: no budget.
        public var memoryBudget: MemoryBudget?
        /// The largest result a photo may have, in pixels: larger ones fail before they are computed.
        public var maxOutputPixels: Int

        public init(
            concurrency: Int = UsableCores.count,
            downloadSlots: Int = 16,
            maxPixels: Int = ImageCodec.defaultMaxPixels,
            downloadLimits: DownloadLimits = DownloadLimits(),
            cacheBytes: Int = 256 << 20,
            stageTimeout: TimeInterval = StageTimeLimit.defaultSeconds,
            stagePriority: ThreadPriority = Configuration.defaultStagePriority,
            storage: WorkerStorage = WorkerStorage(),
            memoryBudget: MemoryBudget? = nil,
            maxOutputPixels: Int = Configuration.defaultMaxOutputPixels
        ) {
            self.storage = storage
            self.memoryBudget = memoryBudget
            self.maxOutputPixels = max(1, maxOutputPixels)
            self.concurrency = max(1, concurrency)
            self.downloadSlots = max(1, downloadSlots)
            self.maxPixels = maxPixels
            self.downloadLimits = downloadLimits
            self.cacheBytes = cacheBytes
            self.stageTimeout = stageTimeout
            self.stagePriority = stagePriority
        }

        /// This configuration with downloads from loopback allowed (the rest of the download
        /// policy kept): for photos served on the worker's own host, as demos and tests do.
        public func allowingLoopback() -> Configuration {
            var copy = self
            copy.downloadLimits.policy = downloadLimits.policy.allowingLoopback()
            return copy
        }
    }

    /// What `submit` decided for a graph.
    private enum Admission {
        case accepted
        /// The same photo is still running: not cancelled, this graph is a repeat and is
        /// ignored; cancelled, this graph starts when it ends, replacing the successor (if
        /// any) that was waiting there.
        case behindRunning(replaced: Photocluster_V1_PhotoGraph?)
        /// The engine has shut down.
        case refused
    }

    typealias OutcomeHandler = @Sendable (PhotoWork, PhotoWork.Outcome) -> Void
    typealias StageHandler = @Sendable (PhotoWork, Photocluster_V1_Stage, UInt64, UInt64, Double) -> Void
    typealias IncidentHandler = @Sendable (PhotoWork, WorkerIncident) -> Void
    /// A photo was granted this many bytes of the memory budget.
    typealias AdmissionHandler = @Sendable (PhotoWork, Int) -> Void

    private struct Running {
        let work: PhotoWork
        let operations: [Operation]
        /// The same photo sent again while this cancelled graph was still winding down: it
        /// starts when this one has ended (from the stages this one left in the cache).
        var successor: Photocluster_V1_PhotoGraph?
    }

    public let configuration: Configuration
    public let filters: FilterRegistry
    public let cache: StageCache
    let downloads: DownloadCoalescer
    /// Where outputs of jobs with an output place go.
    let outputs: OutputStore
    private let downloadEngine: DownloadEngine
    private let inFlight = LockedBox<[PhotoWork.Key: Running]>([:])
    /// Set by `shutdown`; guarded by `inFlight`'s lock (read and written only inside it): a
    /// graph submitted after it is handed back at once instead of starting on the closed downloader.
    private var closed = false
    /// Each job's queues and suspension: used on the queue thread only (and on callers' threads
    /// once it has stopped, hence the lock, which nothing else ever waits for).
    private let jobs = LockedBox(JobTable())
    /// Each job's suspension as the loop last set it, read by stage threads as they start.
    private let gates = JobGates()
    /// The one thread that calls into the queues and their operations (see above), in order.
    private let queueThread = SerialThread(name: "pc-queues")
    /// Set by `shutdown` once it has taken every job's queues from the table and waits for them
    /// to empty; read by anyone (tests race a suspend against that wait).
    private let waitingForQueues = LockedBox(false)
    private let reporter: StageReporter
    private let onOutcome: OutcomeHandler
    /// Admits photos into the memory budget before their pixels are allocated.
    let admission: PhotoAdmission

    /// `source`: where downloads come from; nil for the worker's own (HTTP and S3, `PhotoSources`).
    init(
        configuration: Configuration, filters: FilterRegistry, onStage: @escaping StageHandler,
        onIncident: @escaping IncidentHandler = { _, _ in }, onAdmitted: @escaping AdmissionHandler = { _, _ in }, source: PhotoSource? = nil,
        onOutcome: @escaping OutcomeHandler
    ) {
        self.configuration = configuration
        self.filters = filters
        self.cache = StageCache(capacityBytes: configuration.cacheBytes)
        self.downloadEngine = DownloadEngine(limits: configuration.downloadLimits)
        // S3 requests share the downloads' thread: both only wait on the network.
        let s3 = S3Client(configuration: configuration.storage.s3, engine: downloadEngine)
        self.downloads = DownloadCoalescer(sources: source ?? PhotoSources(engine: downloadEngine, s3: s3, maxBytes: configuration.downloadLimits.maxBytes))
        self.outputs = OutputStore(s3: s3, sharedRoots: configuration.storage.sharedRoots)
        self.reporter = StageReporter(onStage: onStage, onIncident: onIncident)
        self.onOutcome = onOutcome
        self.admission = PhotoAdmission(
            budget: configuration.memoryBudget, maxOutputPixels: configuration.maxOutputPixels,
            cacheEntryLimit: StageCache.entryLimit(capacityBytes: configuration.cacheBytes), onAdmitted: onAdmitted)
    }

    /// The memory budget's figures now, when there is one.
    public var memory: MemoryBudget.Snapshot? { configuration.memoryBudget?.snapshot }

    public var inFlightCount: Int { inFlight.withLock { $0.count } }

    /// Graphs that will each still end with an outcome: those in flight and the successors
    /// waiting behind cancelled ones.
    var heldGraphCount: Int { inFlight.withLock { map in map.count + map.values.filter { $0.successor != nil }.count } }

    /// Every photo held, those cancelled and still ending too: each will send an outcome.
    var heldKeys: [PhotoWork.Key] { inFlight.withLock { Array($0.keys) } }

    /// Photos held, not counting those already cancelled (they are on their way out).
    var inFlightKeys: [PhotoWork.Key] {
        inFlight.withLock { $0.values.filter { !$0.work.isCancelled }.map(\.work.key) }
    }

    /// Photos per stage, waiting for it or running it: each photo counts once, at the first of
    /// its stages that has not finished. Walks only the in-flight map (a few photos per core).
    func stageLoads() -> [Photocluster_V1_Stage: (queued: Int, running: Int)] {
        let current = inFlight.withLock { map in map.values.compactMap { $0.operations.dropLast().first { !$0.isFinished } } }
        var loads: [Photocluster_V1_Stage: (queued: Int, running: Int)] = [:]
        for operation in current {
            let stage: Photocluster_V1_Stage
            switch operation {
            case is DownloadOperation: stage = .download
            case is DecodeOperation: stage = .decode
            case is FilterOperation, is PluginChainOperation: stage = .filter
            case is EncodeOperation: stage = .encode
            case is StoreOperation: stage = .write
            default: continue
            }
            if operation.isExecuting { loads[stage, default: (0, 0)].running += 1 } else { loads[stage, default: (0, 0)].queued += 1 }
        }
        return loads
    }

    /// Checks that every filter of a graph exists here and resolves it.
    func resolveFilters(of graph: Photocluster_V1_PhotoGraph) throws -> [ConfiguredFilter] {
        try graph.filters.map { try filters.resolve($0.filterSpec) }
    }

    // MARK: - Graphs

    /// Builds the graph's operations from its first uncached stage, linked by dependencies, and
    /// queues them. A graph for a photo already in flight is ignored (the coordinator re-sent it),
    /// unless that one was cancelled: then it waits for it to end and starts after it, and a
    /// graph that was waiting there already ends cancelled at once (each graph sent ends once).
    func submit(_ graph: Photocluster_V1_PhotoGraph) {
        let configured: [ConfiguredFilter]
        let place: OutputPlace?
        do {
            configured = try resolveFilters(of: graph)
        } catch {
            onOutcome(PhotoWork(graph: graph, filters: []), .failed(stage: .filter, stageName: "filter", reason: "\(error)", transient: false))
            return
        }
        do {
            place = try OutputPlace(graph.outputPlace)
        } catch {
            onOutcome(PhotoWork(graph: graph, filters: []), .failed(stage: .write, stageName: "store", reason: "\(error)", transient: false))
            return
        }
        let work = PhotoWork(graph: graph, filters: configured, gate: gates.gate(for: graph.jobID))
        let operations = makeOperations(for: work, storingIn: place)
        // Decided under the lock that `complete` and `shutdown` take too, so a successor is never
        // left behind and nothing starts after the shutdown has cancelled what runs; the graph's
        // queueing is handed to the queue thread under it too, so it comes before the
        // shutdown's and `shutdown` waits for the job's queues.
        let admission = inFlight.withLock { map -> Admission in
            if closed { return .refused }
            if let running = map[work.key] {
                guard running.work.isCancelled else { return .behindRunning(replaced: nil) }
                map[work.key]!.successor = graph
                return .behindRunning(replaced: running.successor)
            }
            map[work.key] = Running(work: work, operations: operations)
            // Woken once the lock is let go (see `SerialThread`).
            queueThread.submit(wake: false) { [self] in enqueue(operations, of: graph) }
            return .accepted
        }
        switch admission {
        case .accepted: queueThread.wake()
        case .behindRunning(let replaced):
            if let replaced { endUnstarted(replaced) }
        case .refused: onOutcome(work, .cancelled(lastFinished: .unspecified))
        }
    }

    /// Puts a graph's operations in its job's queues (on the queue thread).
    private func enqueue(_ operations: [Operation], of graph: Photocluster_V1_PhotoGraph) {
        let queues = admitQueues(for: graph.jobID)
        // Priority must be set before an operation is added (see OperationQueue on Linux).
        let priority = Self.queuePriority(for: graph.band)
        for operation in operations { operation.queuePriority = priority }
        for operation in operations {
            (operation is DownloadOperation || operation is StoreOperation ? queues.download : queues.processing).addOperation(operation)
        }
    }

    /// The stages still to run: the longest cached prefix of the chain is skipped; with an output
    /// place, the worker stores the output itself after encoding it.
    private func makeOperations(for work: PhotoWork, storingIn place: OutputPlace?) -> [Operation] {
        let url = work.graph.url
        var firstFilter = 0
        var chain: [Operation] = []
        if let resumed = longestCachedPrefix(of: work) {
            firstFilter = resumed.filtersDone
            work.update {
                $0.image = resumed.image
                $0.imageIsShared = true
                $0.origin = resumed.origin
                $0.lastFinished = resumed.filtersDone == 0 ? .decode : .filter
            }
        } else {
            if case .bytes(let data)? = cache.get(.downloaded(url: url)) {
                work.update {
                    $0.downloaded = data
                    $0.lastFinished = .download
                }
            } else {
                chain.append(DownloadOperation(work: work, downloads: downloads, cache: cache, report: reporter))
            }
            chain.append(DecodeOperation(work: work, maxPixels: configuration.maxPixels, limit: configuration.stageTimeout, cache: cache, admission: admission, report: reporter, priority: configuration.stagePriority))
            if work.reducesOnLoad { firstFilter = 1 }
        }
        // Trailing point filters run inside the encode, band by band (see EncodeOperation).
        let fusedStart = max(firstFilter, work.filters.pointFilterTailStart)
        let limit = configuration.stageTimeout
        var index = firstFilter
        while index < fusedStart {
            // Consecutive plugin filters go to a plugin host together: one hand-off for the run.
            let hosted = work.filters[index..<fusedStart].prefix { $0.stage is HostedFilterStage }
            if hosted.isEmpty {
                chain.append(FilterOperation(work: work, index: index, limit: limit, cache: cache, admission: admission, report: reporter, priority: configuration.stagePriority))
                index += 1
            } else {
                chain.append(PluginChainOperation(work: work, range: index..<index + hosted.count, limit: limit, cache: cache, admission: admission, report: reporter))
                index += hosted.count
            }
        }
        chain.append(EncodeOperation(work: work, fused: Array(work.filters[fusedStart...]), fusedStart: fusedStart, limit: limit, admission: admission, report: reporter, priority: configuration.stagePriority))
        if let place { chain.append(StoreOperation(work: work, place: place, store: outputs, report: reporter)) }
        for index in chain.indices.dropFirst() { chain[index].addDependency(chain[index - 1]) }
        // The last operation reports the outcome. It depends on every stage, not only on encode:
        // a cancelled stage finishes at once, even while the stage before it still runs, and
        // Foundation tracks dependents by unretained pointer, so `inFlight` must keep every
        // operation alive until all of them have finished, which is exactly when this runs.
        let completion = BlockOperation { [weak self] in self?.complete(work) }
        for operation in chain { completion.addDependency(operation) }
        chain.append(completion)
        return chain
    }

    /// The decoded image with the most of the chain already applied, if the cache has one.
    private func longestCachedPrefix(of work: PhotoWork) -> (filtersDone: Int, image: RGBAImage, origin: PixelOrigin)? {
        // A chain that reduces on load has no whole decode of its own to resume from.
        for count in stride(from: work.filters.count, through: work.reducesOnLoad ? 1 : 0, by: -1) {
            if case .image(let image, let origin)? = cache.get(work.pixelsKey(filtersDone: count)) { return (count, image, origin) }
        }
        return nil
    }

    /// Runs last, always: turns whatever the stages left into exactly one outcome.
    private func complete(_ work: PhotoWork) {
        let (held, successor) = inFlight.withLock { map -> (Bool, Photocluster_V1_PhotoGraph?) in
            // Gone only when a drain handed the photo back before it started (`beginDrain`).
            guard let running = map[work.key], running.work === work else { return (false, nil) }
            map.removeValue(forKey: work.key)
            return (true, running.successor)
        }
        defer { if let successor { submit(successor) } }
        // After the outcome is handed on: its output is still held until then.
        defer { admission.release(work) }
        let (outcome, lastFinished) = work.read { ($0.outcome, $0.lastFinished) }
        guard held else {
            queueThread.submit { [self] in jobs.withLock { $0.release(work.graph.jobID) } }
            return
        }
        if case .encoded = outcome, work.graph.hasOutputPlace, work.read({ $0.storedAt }) == nil {
            // Encoded, never stored: the coordinator expects the output in its place, not here.
            onOutcome(work, work.isCancelled
                ? .cancelled(lastFinished: .encode)
                : .failed(stage: .write, stageName: "store", reason: "the output was encoded but not stored", transient: true))
        } else if case .encoded = outcome {
            // Finished before the cancel reached it: the work is done, so deliver it.
            forgetFinishedStages(of: work)
            onOutcome(work, outcome!)
        } else if work.isCancelled {
            onOutcome(work, .cancelled(lastFinished: lastFinished))
        } else if let outcome {
            onOutcome(work, outcome)
        } else {
            onOutcome(work, .failed(stage: .unspecified, stageName: "worker", reason: "the graph ended without a result", transient: true))
        }
        queueThread.submit { [self] in jobs.withLock { $0.release(work.graph.jobID) } }
    }

    /// Ends a graph that never started (a successor replaced or cancelled while it waited).
    private func endUnstarted(_ graph: Photocluster_V1_PhotoGraph) {
        onOutcome(PhotoWork(graph: graph, filters: []), .cancelled(lastFinished: .unspecified))
    }

    /// A finished photo will not be sent again, so its pixels leave the cache (its download
    /// stays, for a job that asks for the same photo again, unless `keepsFinishedDownloads` is
    /// off). The cache then holds the pixels of interrupted photos, which do come back, and the
    /// memory is free for the next photo at once: memory new to the process costs a page fault
    /// per 4 KB.
    private func forgetFinishedStages(of work: PhotoWork) {
        for count in 0...work.filters.count { cache.remove(work.pixelsKey(filtersDone: count)) }
        if !configuration.keepsFinishedDownloads { cache.remove(.downloaded(url: work.graph.url)) }
    }

    // MARK: - Control

    /// Cancels photos of a job (all of them when `photos` is nil). Each ends with a `.cancelled`
    /// outcome unless it had already finished; a successor waiting behind one ends cancelled at
    /// once, without running. Results already made stay in the cache.
    ///
    /// `wakeQueueThread: false` leaves the queue thread's share for `wakeQueueThread()`: the
    /// loop acknowledges first, so the thread it would wake does not run ahead of the ack.
    func cancel(job: String, photos: Set<UInt32>?, wakeQueueThread wake: Bool = true) {
        let (targets, successors) = inFlight.withLock { map -> ([Running], [Photocluster_V1_PhotoGraph]) in
            var targets: [Running] = []
            var successors: [Photocluster_V1_PhotoGraph] = []
            for key in map.keys.filter({ $0.job == job && (photos?.contains($0.photo) ?? true) }) {
                targets.append(map[key]!)
                if let successor = map[key]!.successor {
                    successors.append(successor)
                    map[key]!.successor = nil
                }
            }
            return (targets, successors)
        }
        for successor in successors { endUnstarted(successor) }
        // The photos' flags first: their running stages stop at their next check, and a stage
        // waiting at the job's gate gives up. The operations follow on the queue thread.
        for target in targets { target.work.markCancelled() }
        guard !targets.isEmpty else { return }
        queueThread.submit(wake: wake) { [configuration] in
            // Photos waiting for memory see their flags and leave the wait.
            configuration.memoryBudget?.wakeWaiters()
            for target in targets {
                // The last operation reports the outcome, so it must run: never cancel it.
                for operation in target.operations.dropLast() { operation.cancel() }
                target.work.gate.wakeWaiters()
            }
        }
    }

    /// Suspends or resumes a job: running operations finish, queued ones wait (at once at the
    /// job's gate, then in its queues). After `shutdown`, nothing is suspended any more.
    /// `wakeQueueThread`: as for `cancel`.
    func setSuspended(job: String, _ suspended: Bool, wakeQueueThread wake: Bool = true) {
        guard let gate = gates.set(job, closed: suspended) else { return }
        queueThread.submit(wake: wake) { [self] in
            // The gate's state now, not the one asked for: the newest change wins whatever the order.
            let closed = gate.isClosed
            jobs.withLock { $0.setSuspended(job, closed) }
            if !closed { gate.wakeWaiters() }
        }
    }

    /// A job the coordinator closed: its photos here are cancelled (a suspended job's queues are
    /// resumed, so their outcomes are reported) and its suspension is forgotten.
    func close(job: String) {
        cancel(job: job, photos: nil)
        setSuspended(job: job, false)
        gates.remove(job)
    }

    /// Closes every job this engine knows (running, queued or suspended) but those in `open`.
    func closeJobs(except open: Set<String>) {
        let running = inFlight.withLock { Set($0.keys.map(\.job)) }
        for job in gates.jobs.union(running).subtracting(open) { close(job: job) }
    }

    /// Sets the queue priority of a photo's operations that have not started yet.
    /// `wakeQueueThread`: as for `cancel`.
    func reprioritise(job: String, photo: UInt32, band: Photocluster_V1_PriorityBand, wakeQueueThread wake: Bool = true) {
        guard let running = inFlight.withLock({ $0[PhotoWork.Key(job: job, photo: photo)] }) else { return }
        let priority = Self.queuePriority(for: band)
        queueThread.submit(wake: wake) { [configuration] in
            // A photo waiting for memory moves in that queue too (its lock is the stage threads':
            // taken here, never on the loop).
            running.work.update { $0.band = band }
            configuration.memoryBudget?.reorder()
            for operation in running.operations where !operation.isExecuting && !operation.isFinished {
                operation.queuePriority = priority
            }
        }
    }

    /// Lets the queue thread run what was handed to it with `wakeQueueThread: false`.
    func wakeQueueThread() { queueThread.wake() }

    /// Runs `body` on the queue thread after what was handed to it before (tests hold the
    /// thread with it, to show what the loop's calls do without it).
    func onQueueThread(_ body: @escaping () -> Void) { queueThread.submit(body) }

    /// Starts a drain: graphs submitted from now on end at once as cancelled (handed back, as
    /// after `shutdown`), and so do the photos none of whose stages has started; the others run
    /// on and end as usual. Answers how many run on and how many were handed back. Does not wait.
    ///
    /// The photos not started leave the in-flight map and end here and now: a cancelled operation
    /// ends only once its queue starts it, which may wait for every running download. Their
    /// operations still run (cancelled) later; `complete` then finds them gone and says nothing.
    func beginDrain() -> (running: Int, handedBack: Int) {
        let (unstarted, running) = inFlight.withLock { map -> ([Running], Int) in
            closed = true
            let live = map.values.filter { !$0.work.isCancelled }
            let unstarted = live.filter { !Self.hasStarted($0) }
            for photo in unstarted { map.removeValue(forKey: photo.work.key) }
            return (unstarted, live.count - unstarted.count)
        }
        for photo in unstarted {
            photo.work.markCancelled()
            onOutcome(photo.work, .cancelled(lastFinished: .unspecified))
            if let successor = photo.successor { endUnstarted(successor) }
        }
        // As `cancel` does, on the queue thread; the last operation must run (it releases the queues).
        guard !unstarted.isEmpty else { return (running, 0) }
        queueThread.submit {
            for photo in unstarted { for operation in photo.operations.dropLast() { operation.cancel() } }
        }
        return (running, unstarted.count)
    }

    /// Whether some stage of the photo ran (or it resumed from stages cached here): work a
    /// hand-back would throw away.
    private static func hasStarted(_ running: Running) -> Bool {
        running.work.read { $0.lastFinished } != .unspecified
            || running.operations.dropLast().contains { $0.isExecuting || $0.isFinished }
    }

    /// Cancels everything and waits for it to end; then stops the transfers' thread. Graphs
    /// submitted from now on end at once as cancelled (handed back to the coordinator).
    func shutdown() {
        let running = inFlight.withLock { map -> Set<String> in
            closed = true
            return Set(map.keys.map(\.job))
        }
        for job in running { cancel(job: job, photos: nil) }
        let opened = gates.shutDown()
        // After everything handed to the queue thread so far: every graph admitted is queued.
        let queues = queueThread.sync { [self] in jobs.withLock { $0.shutDown() } }
        for gate in opened { gate.wakeWaiters() }
        waitingForQueues.withLock { $0 = true }
        for queue in queues { queue.waitUntilIdle() }
        // What is handed over from now on runs on the caller's thread.
        queueThread.stop()
        downloadEngine.shutdown()
    }

    /// The queues a newly admitted photo runs in; they stay in the table until it ends.
    private func admitQueues(for job: String) -> JobQueues {
        jobs.withLock { table in
            table.admit(job) { suspended in
                JobQueues(job: job, downloadSlots: configuration.downloadSlots, concurrency: configuration.concurrency, suspended: suspended)
            }
        }
    }

    /// Whether `shutdown` has taken the job queues and waits (or waited) for them to empty: a
    /// suspend from now on finds no queue to suspend.
    var shutdownIsWaitingForQueues: Bool { waitingForQueues.current }

    /// The queues the job table holds for a job (tests check that a finished job leaves none).
    func jobQueues(_ job: String) -> JobQueues? { queueThread.sync { [self] in jobs.withLock { $0.queues[job] } } }

    /// Stages of `job` held at its gate now: each would run but for the job's suspension.
    func stagesWaitingAtGate(job: String) -> Int { gates.waiters(of: job) }

    /// Whether the engine holds no graph and no queues of `job` any more: each graph's outcome has
    /// then been handed on (`complete` releases the job's queues only after `onOutcome` returned),
    /// so no outcome can still come. Tests wait for this instead of for a second outcome.
    func allDelivered(job: String) -> Bool { heldGraphCount == 0 && jobQueues(job) == nil }

    static func queuePriority(for band: Photocluster_V1_PriorityBand) -> Operation.QueuePriority {
        switch band {
        case .visible: return .high
        case .prefetch: return .normal
        default: return .low
        }
    }
}
