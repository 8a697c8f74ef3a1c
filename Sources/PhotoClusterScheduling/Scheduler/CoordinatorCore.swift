import Foundation
import Logging
import PhotoClusterCore
import PhotoClusterProto

/// The coordinator's scheduling, as a state machine: the jobs and each one's whole life, the
/// workers, the attempts sent, the losses, the viewport epochs, the credit and the write backlog,
/// changed only by the events `handle(_:now:wallClock:)` is given, and acting on the world only
/// through the actions it decides, in order, which its shell takes once `handle` has returned
/// (`takeActions(into:)`).
///
/// It holds no reference to its shell and calls nothing of it: what the shell learns while it
/// carries out the actions (a batch of graphs refused, a write that failed at once) comes back as
/// another event, handed in after `handle` returned, so no event can arrive while it decides.
///
/// It opens no socket and no file and reads no clock: time comes with each event, ids with the
/// messages, so the same events make the same actions. `CoordinatorNode` is the shell of the real
/// coordinator; `ClusterSimulation` drives one with simulated workers, network and time.
///
/// Owned by one thread (the shell's loop); nothing of it is shared.
package final class CoordinatorCore {
    /// What the core needs of the coordinator's configuration.
    package struct Settings {
        package internal(set) var coordinatorID: String
        package internal(set) var heartbeatInterval: TimeInterval
        package internal(set) var heartbeatLiveness: Int
        package internal(set) var maxAttempts: UInt32
        package internal(set) var retryBackoff: TimeInterval
        package internal(set) var maxWorkerLosses: UInt32
        package internal(set) var workerBudgets: WorkerBudgets
        /// The largest result a worker may send (announced in each welcome).
        package internal(set) var resultLimit: Int64
        /// Finished jobs kept (the last to finish); older ones are forgotten.
        package internal(set) var finishedJobsKept: Int

        /// The defaults are the coordinator's own (`CoordinatorConfiguration`).
        package init(
            coordinatorID: String, heartbeatInterval: TimeInterval = 1, heartbeatLiveness: Int = 3, maxAttempts: UInt32 = 3,
            retryBackoff: TimeInterval = 0.25, maxWorkerLosses: UInt32 = 3, workerBudgets: WorkerBudgets = WorkerBudgets(),
            resultLimit: Int64 = 256 << 20, finishedJobsKept: Int = 100
        ) {
            self.coordinatorID = coordinatorID
            self.heartbeatInterval = heartbeatInterval
            self.heartbeatLiveness = heartbeatLiveness
            self.maxAttempts = maxAttempts
            self.retryBackoff = retryBackoff
            self.maxWorkerLosses = maxWorkerLosses
            self.workerBudgets = workerBudgets
            self.resultLimit = resultLimit
            self.finishedJobsKept = max(1, finishedJobsKept)
        }
    }

    package let settings: Settings
    /// The actions decided and not taken by the shell yet, in order. Reused: the shell swaps its
    /// own emptied buffer in (`takeActions(into:)`), so no action allocates in the steady state.
    private var actions: [CoordinatorAction] = []
    /// The time of the event being handled.
    package private(set) var now: MonotonicInstant
    /// The wall clock's reading with it: the instants a job's summary shows (created, finished).
    package private(set) var wallClock = Date(timeIntervalSince1970: 0)

    package internal(set) var jobs = SlotTable<String, Job>()
    package internal(set) var jobOrder: [String] = []
    /// The jobs not finished yet, in submission order: the ones dispatch looks at.
    package internal(set) var openJobs: [String] = []
    package internal(set) var workers = SlotTable<String, WorkerRecord>()
    /// The worker table: connected workers by number (photo records hold numbers, not ids).
    package internal(set) var workerIDs: [WorkerNumber: String] = [:]
    package internal(set) var lastWorkerNumber: UInt32 = 0
    /// Graphs assigned while handling the current event, per worker id, sent when the shell's
    /// turn ends (`.turnEnded`) or before the next message to that worker (see `sendToWorker`).
    package internal(set) var graphsToSend: [String: GraphBatch] = [:]
    /// While a worker's batch of reports is handled: the photos its stored results settled, per
    /// job, told when the batch is through (see `receiveReports`); nil otherwise.
    package internal(set) var settledInBatch: [String: [(index: UInt32, worker: String?)]]?
    /// When every message from workers had last been read (see `heartbeatTick`).
    package internal(set) var workerMessagesReadAt: MonotonicInstant
    /// Workers declared lost for their silence, with the photos charged for them: forgiven if
    /// the same process comes back (see `CoordinatorCore+Losses`).
    package internal(set) var recentLosses: [String: RecentLoss] = [:]
    /// A worker kept for suspects while any wait (see `reserveWorkerForSuspects`).
    package internal(set) var reservedForSuspects: String?
    /// Photos whose result file is being written, and since when: a second result for one is
    /// ignored, and one that takes longer than the write timeout fails.
    package internal(set) var writing: [PhotoRef: MonotonicInstant] = [:]
    /// Bytes of results handed to the writers and not written yet, in all and by the result's
    /// own photo.
    package internal(set) var bytesBeingWritten = 0
    package internal(set) var bytesByWrite: [PhotoRef: Int] = [:]
    /// Which worker each attempt in flight was sent to: the reports believed (see `admitReport`).
    package internal(set) var attemptsSent = AttemptLedger()
    /// Set when workers or jobs change, so photos no worker can run are looked for only then.
    package internal(set) var capabilitiesChanged = false
    /// Control changes per job that not every worker has acknowledged yet, oldest first, with
    /// when each request arrived: each is timed when the last worker acknowledges its epoch or a
    /// newer one, so a change overtaken by the next is timed too, not left out.
    package internal(set) var controlSentAt: [String: [(epoch: UInt64, at: MonotonicInstant)]] = [:]
    /// Jobs a client hears of photo by photo (the shell's `.clientsHearEveryPhoto`): their photos
    /// settled together are told one by one, each with the counts after it (`EventDetail`).
    package private(set) var jobsToldEveryPhoto: Set<String> = []
    /// Jobs whose index is being written (see `CoordinatorCore+Lifecycle`).
    package internal(set) var finishing: [String: FinishingJob] = [:]
    /// Finished jobs, the first to finish first: the oldest are forgotten.
    package internal(set) var finishedOrder: [String] = []
    /// The turn has ended (`.turnEnded`, and the shell's answers to what it sent then): graphs
    /// assigned now leave at once, as no other end of turn will come for them.
    private var turnHasEnded = false

    package init(settings: Settings, now: MonotonicInstant) {
        self.settings = settings
        self.now = now
        workerMessagesReadAt = now
    }

    /// Handles one event at `now`; the actions it leads to wait, in order, for the shell to take
    /// them (`takeActions(into:)`) once it returns.
    package func handle(_ event: CoordinatorEvent, now: MonotonicInstant, wallClock: Date) {
        self.now = now
        self.wallClock = wallClock
        switch event {
        case .graphsRefused, .clientsHearEveryPhoto: break
        case .turnEnded: turnHasEnded = true
        default: turnHasEnded = false
        }
        switch event {
        case .fromWorker(let id, let key, let message, let photos):
            receiveFromWorker(id, message, photos: photos, key: key)
        case .workerMessagesDrained:
            workerMessagesReadAt = now
        case .heartbeatTick(let messagesWaiting):
            heartbeatTick(messagesWaiting: messagesWaiting)
        case .retryTick:
            releaseDueRetries()
        case .turnEnded:
            sendAssignedGraphs()
        case .jobOpened(let job):
            start(job)
        case .jobsRestored(let restored, let finishOrder):
            restore(restored, finishOrder: finishOrder)
        case .viewport(let jobID, let viewport, let arrivedAt):
            setViewport(jobID, viewport, arrivedAt: arrivedAt)
        case .suspend(let jobID, let suspended, let arrivedAt):
            setSuspendedByClient(jobID, suspended, arrivedAt: arrivedAt)
        case .cancel(let jobID, let names):
            if names.isEmpty { jobs[jobID]?.cancelledWhole = true }
            cancelPhotos(of: jobID, names: names)
        case .drainWorker(let id, let timeoutMs):
            askToDrain(id, timeoutMs: timeoutMs)
        case .indexWritten(let jobID, let problem):
            indexWritten(jobID, problem: problem)
        case .workerRemoved(let id, let departure):
            loseWorker(id, departure)
        case .resultsWritten(let writes):
            resultsWritten(writes)
        case .writesOverdue(let limit):
            expireStuckWrites(after: limit)
            finishJobsWithStuckIndexes(after: limit)
        case .graphsRefused(let refused):
            graphsRefused(refused, turnHasEnded: turnHasEnded)
        case .clientsHearEveryPhoto(let jobID, let hear):
            if hear { jobsToldEveryPhoto.insert(jobID) } else { jobsToldEveryPhoto.remove(jobID) }
        }
    }

    /// Whether a client hears of each of the job's photos as it settles (then photos settled
    /// together are told one by one, each with the counts after it).
    package func tellsEveryPhoto(of job: String) -> Bool { jobsToldEveryPhoto.contains(job) }

    /// A job submitted or restored: dispatch looks at it from now on.
    package func open(_ job: Job) {
        jobs[job.id] = job
        jobOrder.append(job.id)
        if !job.isFinished { openJobs.append(job.id) }
        capabilitiesChanged = true
    }

    func forget(_ ids: [String]) {
        let gone = Set(ids)
        jobOrder.removeAll { gone.contains($0) }
        openJobs.removeAll { gone.contains($0) }
        for id in ids {
            jobs.removeValue(forKey: id)
            controlSentAt.removeValue(forKey: id)
            for worker in workers.keys { workers[worker]?.ackedEpoch.removeValue(forKey: id) }
            attemptsSent.forget(job: id)
            jobsToldEveryPhoto.remove(id)
        }
    }

    // MARK: - Actions

    /// Whether actions wait for the shell.
    package var hasActions: Bool { !actions.isEmpty }

    /// Hands the shell the actions decided so far, in order, in `taken` (whatever it held is
    /// dropped); the core keeps `taken`'s old storage for the next ones, so the two buffers are
    /// swapped back and forth and neither is allocated again.
    package func takeActions(into taken: inout [CoordinatorAction]) {
        taken.removeAll(keepingCapacity: true)
        swap(&actions, &taken)
    }

    /// Decides an action: the shell carries it out after `handle` returns, after those before it.
    package func emit(_ action: CoordinatorAction) { actions.append(action) }

    package func log(_ message: String, job: String? = nil, photo: UInt32? = nil, worker: String? = nil) {
        emit(.log(.info, message, job: job, photo: photo, worker: worker))
    }

    package func log(_ level: Logger.Level, _ message: String, job: String? = nil, photo: UInt32? = nil, worker: String? = nil) {
        emit(.log(level, message, job: job, photo: photo, worker: worker))
    }

    package func count(_ counter: CoordinatorAction.Counter) { emit(.count(counter)) }
}
