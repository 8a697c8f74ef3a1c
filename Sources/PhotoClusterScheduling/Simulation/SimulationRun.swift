import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What happens in a simulation, at a virtual time.
package enum SimulationEvent {
    case toCoordinator(connection: Int, worker: String, Photocluster_V1_WorkerToCoordinator, photos: [Data])
    case toWorker(slot: Int, connection: Int, Photocluster_V1_CoordinatorToWorker.OneOf_Body)
    /// A photo the worker holds moves on: its download is reported, or it ends.
    case photoStep(slot: Int, incarnation: Int, job: String, index: UInt32, attempt: UInt32)
    case workerHeartbeat(slot: Int, incarnation: Int)
    case workerStart(slot: Int)
    case workerResume(slot: Int, incarnation: Int)
    /// A poison photo kills the process that runs it.
    case workerDies(slot: Int, incarnation: Int)
    /// A draining worker's --drain-timeout ends: it hands back what still runs and leaves.
    case drainTimeout(slot: Int, incarnation: Int)
    /// A stopped worker's connection times out (ZMTP heartbeats): what was on it is lost.
    case connectionTimeout(slot: Int, connection: Int)
    case connectionClosed(Int)
    case coordinatorHeartbeat
    case retryTick
    case writeCheck
    /// A write ends, or an index is written, on the writer threads of coordinator incarnation
    /// `coordinator` (lost with it when it is killed).
    case writeDone(WrittenResult, coordinator: Int)
    case indexWritten(String, coordinator: Int)
    /// The coordinator is killed (SIGKILL), and starts again from its journal.
    case coordinatorKilled
    case coordinatorStarts
    case fault
    case heal
}

/// One run of `ClusterSimulation`: the core under test, the simulated world around it, and the
/// record the invariants are checked against. The core's shell: it takes the core's actions once
/// each event is handled, and carries them out in the simulated world (see `tellCore`).
package final class SimulationRun {
    package let options: ClusterSimulation.Options
    package var random: SeededRandom
    package var agenda = SimulationAgenda<SimulationEvent>()
    /// Virtual microseconds since the start.
    package var time: Int64 = 0
    package let origin: MonotonicInstant
    package var core: CoordinatorCore!
    /// Tells the core as the coordinator node does (see `CoreDriver`).
    private let coreDriver = CoreDriver()
    package var workers: [SimulatedWorker] = []
    package var liveConnections: Set<Int> = []
    private var lastConnection = 0
    /// When the last message on each connection arrives, each way: a connection keeps order.
    package var lastArrival: [Int: (toWorker: Int64, toCoordinator: Int64)] = [:]
    package var jobIDs: [String] = []
    package var healing = false
    /// The coordinator's process: its incarnation, and whether it is down (killed, not restarted yet).
    package var coordinator = (incarnation: 1, down: false)
    /// What the coordinator's journal holds: every job, in submission order.
    package var journal: [String: JournaledJob] = [:]
    package var finishing: Set<String> = []
    package var writeTimeout: TimeInterval = 5

    // What the invariants are checked against.
    package var settled: Set<PhotoRef> = []
    package var sentAttempts: Set<SentAttempt> = []
    package var written: Set<PhotoRef> = []
    package var epochsSent: [String: [String: UInt64]] = [:]
    package var missingSince: [PhotoRef: Int64] = [:]
    package var violation: String?

    // What the run reports.
    package var steps = 0
    package var digest: UInt64 = 0xCBF2_9CE4_8422_2325
    package var trace: [String] = []
    package var tally = (killed: 0, paused: 0, cutOff: 0, forged: 0, coordinatorKilled: 0, drained: 0)

    package struct SentAttempt: Hashable {
        package let ref: PhotoRef
        package let attempt: UInt32
        package let worker: String
    }

    package init(options: ClusterSimulation.Options, origin: MonotonicInstant) {
        self.options = options
        self.origin = origin
        random = SeededRandom(seed: options.seed)
        core = CoordinatorCore(settings: Self.settings, now: origin)
    }

    package static let settings = CoordinatorCore.Settings(
        coordinatorID: "simulated", heartbeatInterval: 1, heartbeatLiveness: 3, maxAttempts: 3, retryBackoff: 0.25, maxWorkerLosses: 3,
        workerBudgets: WorkerBudgets(maxConcurrency: 8, assignmentTimeout: 20), resultLimit: 1 << 20)

    package var now: MonotonicInstant { origin + .microseconds(time) }
    package var seconds: Double { Double(time) / 1e6 }

    package func run() -> ClusterSimulation.Outcome {
        for slot in 0..<options.workers {
            workers.append(SimulatedWorker(id: "w\(slot)", concurrency: Int.random(in: 1...3, using: &random)))
            agenda.schedule(.workerStart(slot: slot), at: random.millis(0...200))
        }
        for _ in 0..<Int.random(in: 1...3, using: &random) { submitJob() }
        agenda.schedule(.coordinatorHeartbeat, at: 1_000_000)
        agenda.schedule(.retryTick, at: 250_000)
        agenda.schedule(.writeCheck, at: 1_000_000)
        agenda.schedule(.fault, at: random.millis(200...1500))
        let healAt = Int64(options.faultSeconds * 1e6)
        agenda.schedule(.heal, at: healAt)
        // After the heal every job must end; a run that goes on this long has one that never will.
        let deadline = healAt + 600_000_000
        while violation == nil, let (at, event) = agenda.next() {
            guard at <= deadline else {
                fail("jobs never ended: \(unfinishedJobs())")
                break
            }
            time = at
            steps += 1
            note(event)
            handle(event)
            if violation == nil && !coordinator.down { checkState() }
            if healing && !coordinator.down && jobIDs.allSatisfy({ core.jobs[$0]?.isFinished ?? true }) { break }
        }
        return ClusterSimulation.Outcome(
            seed: options.seed, steps: steps, simulatedSeconds: seconds, violation: violation, digest: digest, trace: trace, summary: summary(),
            faults: (tally.killed, tally.paused, tally.cutOff))
    }

    private func handle(_ event: SimulationEvent) {
        switch event {
        case .toCoordinator(let connection, let worker, let message, let photos):
            guard liveConnections.contains(connection), !coordinator.down else { return }
            tellCore(.fromWorker(id: worker, key: nil, message: message, photos: photos[...]))
            tellCore(.workerMessagesDrained)
            tellCore(.turnEnded)
        case .toWorker(let slot, let connection, let body):
            deliver(body, to: slot, on: connection)
        case .photoStep(let slot, let incarnation, let job, let index, let attempt):
            stepPhoto(slot, incarnation, job, index, attempt)
        case .workerHeartbeat(let slot, let incarnation):
            beat(slot, incarnation)
        case .workerStart(let slot):
            startWorker(slot)
        case .workerResume(let slot, let incarnation):
            resumeWorker(slot, incarnation)
        case .drainTimeout(let slot, let incarnation):
            drainTimedOut(slot, incarnation)
        case .workerDies(let slot, let incarnation):
            guard workers[slot].incarnation == incarnation, workers[slot].process != .dead else { return }
            kill(slot)
        case .connectionTimeout(let slot, let connection):
            guard workers[slot].connection == connection, case .paused = workers[slot].process else { return }
            liveConnections.remove(connection)
            workers[slot].connection = 0
        case .connectionClosed(let connection):
            liveConnections.remove(connection)
        case .coordinatorHeartbeat:
            guard !coordinator.down else { return agenda.schedule(.coordinatorHeartbeat, at: time + 1_000_000) }
            tellCore(.heartbeatTick(messagesWaiting: false))
            tellCore(.turnEnded)
            checkHeldAssignments()
            agenda.schedule(.coordinatorHeartbeat, at: time + 1_000_000)
        case .retryTick:
            guard !coordinator.down else { return agenda.schedule(.retryTick, at: time + 250_000) }
            tellCore(.retryTick)
            tellCore(.turnEnded)
            agenda.schedule(.retryTick, at: time + 250_000)
        case .writeCheck:
            guard !coordinator.down else { return agenda.schedule(.writeCheck, at: time + 1_000_000) }
            tellCore(.writesOverdue(limit: writeTimeout))
            tellCore(.turnEnded)
            agenda.schedule(.writeCheck, at: time + 1_000_000)
        case .writeDone(let write, let incarnation):
            guard incarnation == coordinator.incarnation, !coordinator.down else { return }
            writeFinished(write)
        case .indexWritten(let jobID, let incarnation):
            guard incarnation == coordinator.incarnation, !coordinator.down, let job = core.jobs[jobID] else { return }
            job.enter(job.cancelledWhole ? .cancelled : .didFinish, at: Date(timeIntervalSince1970: 0))
            journal[jobID]?.noteState(of: job)
            finishing.remove(jobID)
            tellCore(.jobEnded(jobID))
            tellCore(.turnEnded)
        case .fault:
            guard !healing else { return }
            injectFault()
            agenda.schedule(.fault, at: time + random.millis(200...2500))
        case .heal:
            heal()
        case .coordinatorKilled:
            killCoordinator()
        case .coordinatorStarts:
            startCoordinator()
        }
    }

    // MARK: - The network

    package func openConnection() -> Int {
        lastConnection += 1
        liveConnections.insert(lastConnection)
        return lastConnection
    }

    /// A worker's message leaves on its connection, after whatever it sent before.
    package func send(_ body: Photocluster_V1_WorkerToCoordinator.OneOf_Body, from slot: Int, photos: [Data] = []) {
        let connection = workers[slot].connection
        guard connection != 0 else { return }
        var message = Photocluster_V1_WorkerToCoordinator()
        message.body = body
        let arrival = max(lastArrival[connection]?.toCoordinator ?? 0, time + random.millis(0...15) + 50)
        lastArrival[connection, default: (0, 0)].toCoordinator = arrival
        agenda.schedule(.toCoordinator(connection: connection, worker: workers[slot].id, message, photos: photos), at: arrival)
    }

    // MARK: - The shell

    /// Some jobs have a client that hears of every photo (the path that settles photos one by
    /// one), the others only counts.
    package static func tellsEveryPhoto(of job: String) -> Bool { job.hasSuffix("1") }

    /// Hands `event` to the core now, then carries out what it decided, in order, by the driver
    /// `CoordinatorNode.tellCore` uses: what the world answers (a batch refused) goes back to the
    /// core once the actions in hand are carried out.
    package func tellCore(_ event: CoordinatorEvent) {
        coreDriver.tell(event, to: core, now: now) { perform($0) }
    }

    /// Carries out one action; answers whether it was done (false: a send that did not leave).
    private func perform(_ action: CoordinatorAction) -> Bool {
        noteAction(action)
        switch action {
        case .sendToWorker(let id, let body):
            checkEpoch(of: body, to: id)
            return routeToWorker(id, body)
        case .sendGraphs(let id, let batch, let sequence):
            guard let message = try? Photocluster_V1_CoordinatorToWorker(serializedBytes: batch.message(sequence: sequence)),
                routeToWorker(id, message.body!)
            else { return false }
            for (ref, attempt) in batch.sent { sentAttempts.insert(SentAttempt(ref: ref, attempt: attempt, worker: id)) }
            return true
        case .photosSettled(let jobID, let photos, _, let allSettled):
            photosSettled(jobID, photos, allSettled: allSettled)
        case .writeResult(let result, let worker, _, let targets):
            startWrite(result, from: worker, targets: targets)
        case .journalLosses(let job, let photo, let losses):
            journal[job]?.losses[photo] = losses
        case .journalJobState(let jobID):
            if let job = core.jobs[jobID] { journal[jobID]?.noteState(of: job) }
        case .stageReported, .spansReported, .rejected, .refusedProtocol, .workersChanged, .count, .log:
            break
        }
        return true
    }

    /// A ROUTER sends to a peer only while its connection is up; the message is then on its way.
    private func routeToWorker(_ id: String, _ body: Photocluster_V1_CoordinatorToWorker.OneOf_Body) -> Bool {
        guard let slot = workers.firstIndex(where: { $0.id == id && $0.connection != 0 }) else { return false }
        let connection = workers[slot].connection
        let arrival = max(lastArrival[connection]?.toWorker ?? 0, time + random.millis(0...15) + 50)
        lastArrival[connection, default: (0, 0)].toWorker = arrival
        agenda.schedule(.toWorker(slot: slot, connection: connection, body), at: arrival)
        return true
    }

    private func photosSettled(_ jobID: String, _ photos: [(photo: PhotoRecord, worker: String?)], allSettled: Bool) {
        if let job = core.jobs[jobID] {
            for (photo, _) in photos { journal[jobID]?.photos[Int(photo.index)] = JournaledPhoto(photo, of: job) }
            journal[jobID]?.noteState(of: job)
        }
        for (photo, _) in photos {
            let ref = PhotoRef(job: jobID, index: photo.index)
            if !settled.insert(ref).inserted { return fail("photo \(photo.index) of job \(jobID) settled twice") }
            if photo.state == .done && !written.contains(ref) { return fail("photo \(photo.index) of job \(jobID) is done without its output written") }
        }
        guard allSettled, let job = core.jobs[jobID], !job.isFinished, finishing.insert(jobID).inserted else { return }
        if !job.cancelledWhole { job.enter(.willFinish, at: Date(timeIntervalSince1970: 0)) }
        agenda.schedule(.indexWritten(jobID, coordinator: coordinator.incarnation), at: time + random.millis(1...20))
    }

    private func startWrite(_ result: Photocluster_V1_PhotoResult, from worker: String, targets: [(index: UInt32, name: String)]) {
        let ref = PhotoRef(job: result.jobID, index: result.photoIndex)
        guard sentAttempts.contains(SentAttempt(ref: ref, attempt: result.attempt, worker: worker)) else {
            return fail("a result for attempt \(result.attempt) of photo \(result.photoIndex) of job \(result.jobID) from \(worker), which was never sent that attempt, is being written")
        }
        for target in targets where written.contains(PhotoRef(job: result.jobID, index: target.index)) {
            return fail("photo \(target.index) of job \(result.jobID) is written a second time")
        }
        // Most writes take milliseconds; a few fail, and a few hang past the write timeout.
        let hangs = random.chance(0.02)
        let errors: [Error?] = targets.map { _ in random.chance(0.02) ? SimulatedWriteFailure() : nil }
        let write = WrittenResult(result: result, worker: worker, targets: targets, errors: errors)
        agenda.schedule(.writeDone(write, coordinator: coordinator.incarnation), at: time + (hangs ? random.millis(6000...9000) : random.millis(1...30)))
    }

    private func writeFinished(_ write: WrittenResult) {
        for (target, error) in zip(write.targets, write.errors) where error == nil {
            let ref = PhotoRef(job: write.result.jobID, index: target.index)
            // As the node does: a file for a photo settled meanwhile is removed, never kept.
            if core.jobs[ref.job]?.photo(ref.index)?.isSettled == false { written.insert(ref) }
        }
        tellCore(.resultsWritten([write]))
        tellCore(.turnEnded)
    }

    package func fail(_ what: String) {
        guard violation == nil else { return }
        violation = "step \(steps) at \(String(format: "%.3f", seconds)) s: \(what)"
    }
}

package struct SimulatedWriteFailure: Error, CustomStringConvertible {
    package var description: String { "simulated disk error" }
}
