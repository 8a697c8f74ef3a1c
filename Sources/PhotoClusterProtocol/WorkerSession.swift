import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// The worker's side of the protocol, with no socket, engine or clock: which of the
/// coordinator's messages to believe, in what order to act on them, what each asks of the
/// worker, and what the worker says (`WorkerSession+Speaking`: its hello and credit, its
/// heartbeat's accounting, when the coordinator has been silent too long). `WorkerNode` is its
/// shell, and `ClusterSimulation`'s workers are another: each hands over what one read of its
/// socket brought, carries out the commands, in order, on its engine and socket, and sends what
/// the session says. Owned by the shell (the worker's loop thread; the simulation's thread).
///
/// Control comes first: the cancels, suspensions and priority changes of a read are applied and
/// acknowledged (once per job, at its newest epoch) before any graph of it is started. Epochs
/// keep the reordering safe: a graph sent before a change in the same read is older than it, and
/// is handed back rather than started. Only a cancel of a photo whose graph came earlier in the
/// read at the cancel's own epoch (never sent by a coordinator, which bumps the epoch for every
/// cancel) waits for what came before it, as it would in order. Control older than the newest
/// epoch seen for its job is ignored, so a late or reordered message cannot bring cancelled
/// work back.
package struct WorkerSession {
    package enum Command: Equatable {
        /// Control for the engine; its queue thread is woken once, after the acknowledgements.
        case cancel(job: String, photos: Set<UInt32>?)
        case setSuspended(job: String, Bool)
        case reprioritise(job: String, photo: UInt32, band: Photocluster_V1_PriorityBand)
        /// Acknowledges the job's control at this epoch, ahead of anything waiting to leave.
        case acknowledge(job: String, epoch: UInt64)
        case wakeQueueThread
        case start(Photocluster_V1_PhotoGraph)
        /// A graph sent under an older viewport: handed straight back, cancelled, not started.
        case handBack(Photocluster_V1_PhotoGraph)
        /// A photo the coordinator no longer counts on this worker.
        case drop(job: String, photo: UInt32)
        case sayHello
        /// Registered with a coordinator other than the last one (worth a log line).
        case registered(coordinatorID: String)
        case closeJobs(except: Set<String>)
        case close(job: String)
        /// The coordinator does not accept this worker's protocol version: say so, and say hello
        /// again only after `retryAfter` seconds (the coordinator's requests to register are
        /// ignored meanwhile, so a refused worker never spins).
        case refused(reason: String, retryAfter: TimeInterval)
        /// An admin asked this worker to drain and stay idle; 0: its own drain timeout.
        case drain(timeout: TimeInterval)
    }

    /// The longest a refused worker waits before saying hello again.
    package static let longestRefusalBackoff: TimeInterval = 60

    /// The coordinator's heartbeat settings (from its welcome) win over our own, so it never
    /// declares us lost for beating too slowly.
    package private(set) var heartbeatInterval: TimeInterval
    package private(set) var heartbeatLiveness: Int
    private let configuredHeartbeatInterval: TimeInterval
    /// The largest result the coordinator takes (from its welcome): a larger one fails its photo
    /// here, since a message over the coordinator's limit is dropped with everything beside it.
    package private(set) var resultLimit = ResultSizeLimit.defaultBytes
    package internal(set) var connectedTo: String?
    /// Per job, the newest control epoch seen; a job the coordinator closes is forgotten.
    package private(set) var newestEpoch: [String: UInt64] = [:]
    /// The newest assignment sequence accounted for since the last welcome: an assignment's own,
    /// or one a coordinator heartbeat names (every assignment before it has arrived or never
    /// will). Heartbeats report it with the photos held, so the coordinator finds lost ones.
    package private(set) var assignSequenceSeen: UInt64 = 0
    /// Refusals of this worker's protocol version since its last welcome: the back-off doubles
    /// with each, from 1 s to `longestRefusalBackoff`.
    package private(set) var refusals = 0
    /// The worker's credit rules, for its window.
    package let credit: WorkerCredit
    /// Said hello and not welcomed yet: graphs that arrive meanwhile were assigned before the
    /// coordinator read the hello, and it takes back whatever the hello does not name (to
    /// another worker, or to this one again after its welcome), so they are not run. A hello
    /// unanswered for a liveness period is said again (`helloUnanswered(at:)`): its welcome may
    /// have been lost with a broken connection.
    package internal(set) var awaitingWelcome = false
    /// When the worker last said hello.
    package internal(set) var helloSaidAt: MonotonicInstant?
    /// The hellos this process said: each names its number, and each heartbeat the newest, so
    /// the coordinator tells a heartbeat of an earlier registration, read after the new hello
    /// (it waited in a socket the worker has since replaced), from one of the new.
    package internal(set) var hellosSaid: UInt32 = 0
    /// When the coordinator last spoke, or the worker last said hello (nil before the first).
    package internal(set) var lastHeard: MonotonicInstant?

    package init(heartbeatInterval: TimeInterval, heartbeatLiveness: Int, window: Int) {
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatLiveness = heartbeatLiveness
        configuredHeartbeatInterval = heartbeatInterval
        credit = WorkerCredit(window: window)
    }

    /// What one read of the socket brought, in arrival order: the commands it leads to, in the
    /// order to carry them out.
    package mutating func receive(_ messages: [Photocluster_V1_CoordinatorToWorker]) -> [Command] {
        var commands: [Command] = []
        var deferred: [Photocluster_V1_CoordinatorToWorker] = []
        var acks: [String: UInt64] = [:]
        for message in messages {
            guard message.isControl else {
                deferred.append(message)
                continue
            }
            if let cancel = message.cancelTarget, deferred.contains(where: { cancel.covers($0) }) {
                for earlier in deferred { handle(earlier, into: &commands) }
                deferred.removeAll()
            }
            applyControl(message, acks: &acks, into: &commands)
        }
        for (job, epoch) in acks.sorted(by: { $0.key < $1.key }) { commands.append(.acknowledge(job: job, epoch: epoch)) }
        if !acks.isEmpty { commands.append(.wakeQueueThread) }
        for message in deferred { handle(message, into: &commands) }
        return commands
    }

    /// A control message of an epoch not older than the job's newest, and the acknowledgement
    /// it owes.
    private mutating func applyControl(_ message: Photocluster_V1_CoordinatorToWorker, acks: inout [String: UInt64], into commands: inout [Command]) {
        let job: String
        let epoch: UInt64
        var apply: [Command] = []
        switch message.body {
        case .cancel(let cancel):
            (job, epoch) = (cancel.jobID, cancel.epoch)
            apply = [.cancel(job: cancel.jobID, photos: cancel.wholeJob ? nil : Set(cancel.photoIndices))]
        case .suspend(let suspend):
            (job, epoch) = (suspend.jobID, suspend.epoch)
            apply = [.setSuspended(job: suspend.jobID, true)]
        case .resume(let resume):
            (job, epoch) = (resume.jobID, resume.epoch)
            apply = [.setSuspended(job: resume.jobID, false)]
        case .reprioritise(let update):
            (job, epoch) = (update.jobID, update.epoch)
            apply = update.updates.map { .reprioritise(job: update.jobID, photo: $0.photoIndex, band: $0.band) }
        case .control(let control):
            (job, epoch) = (control.jobID, control.epoch)
            if !control.cancel.isEmpty { apply.append(.cancel(job: control.jobID, photos: Set(control.cancel))) }
            apply += control.priorities.map { .reprioritise(job: control.jobID, photo: $0.photoIndex, band: $0.band) }
            apply.append(.setSuspended(job: control.jobID, control.suspended))
        default:
            return
        }
        if let newest = newestEpoch[job], epoch < newest { return }
        newestEpoch[job] = epoch
        commands += apply
        acks[job] = max(acks[job] ?? 0, epoch)
    }

    private mutating func handle(_ message: Photocluster_V1_CoordinatorToWorker, into commands: inout [Command]) {
        switch message.body {
        case .assign(let assign):
            guard !awaitingWelcome else { return }
            assignSequenceSeen = max(assignSequenceSeen, assign.sequence)
            commands.append(start(assign.graph))
        case .assignBatch(let batch):
            guard !awaitingWelcome else { return }
            assignSequenceSeen = max(assignSequenceSeen, batch.sequence)
            commands += batch.graphs.map(start)
        case .pleaseRegister:
            // A refused worker says hello when its back-off ends, not whenever it is asked. A
            // hello on its way answers every request: a restarted coordinator asks once for each
            // heartbeat queued while it was down, and each hello more registered the worker again,
            // taking back what it had been given meanwhile (a lost hello is said again after a
            // liveness period: `helloUnanswered`).
            if refusals == 0 && !awaitingWelcome { commands.append(.sayHello) }
        case .refused(let refused):
            refusals += 1
            let backoff = min(Self.longestRefusalBackoff, Double(1 << min(refusals - 1, 16)))
            commands.append(.refused(reason: refused.reason, retryAfter: backoff))
        case .dropStale(let drop):
            commands += drop.photos.map { .drop(job: $0.jobID, photo: $0.photoIndex) }
        case .welcome(let welcome):
            // A new registration: the coordinator counts its assignments from 1 again.
            awaitingWelcome = false
            assignSequenceSeen = 0
            refusals = 0
            if welcome.heartbeatIntervalMs > 0 {
                heartbeatInterval = min(configuredHeartbeatInterval, Double(welcome.heartbeatIntervalMs) / 1000)
            }
            if welcome.heartbeatLiveness > 0 { heartbeatLiveness = Int(welcome.heartbeatLiveness) }
            if welcome.maxResultBytes > 0 { resultLimit = Int64(clamping: welcome.maxResultBytes) }
            if connectedTo != welcome.coordinatorID {
                connectedTo = welcome.coordinatorID
                commands.append(.registered(coordinatorID: welcome.coordinatorID))
            }
            if welcome.hasOpenJobs {
                let open = Set(welcome.openJobs.jobIds)
                newestEpoch = newestEpoch.filter { open.contains($0.key) }
                commands.append(.closeJobs(except: open))
            }
        case .jobClosed(let closed):
            newestEpoch.removeValue(forKey: closed.jobID)
            commands.append(.close(job: closed.jobID))
        case .heartbeat(let beat):
            assignSequenceSeen = max(assignSequenceSeen, beat.assignSequence)
        case .drain(let drain):
            commands.append(.drain(timeout: Double(drain.timeoutMs) / 1000))
        case .none:
            break
        case .cancel, .suspend, .resume, .reprioritise, .control:
            break  // applied by `applyControl` before anything else
        }
    }

    private func start(_ graph: Photocluster_V1_PhotoGraph) -> Command {
        if let newest = newestEpoch[graph.jobID], graph.epoch < newest { return .handBack(graph) }
        return .start(graph)
    }
}
