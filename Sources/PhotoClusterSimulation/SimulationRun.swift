import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterScheduling

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
    /// The timers of coordinator incarnation `coordinator` (a leader's).
    case coordinatorHeartbeat(coordinator: Int)
    case retryTick(coordinator: Int)
    case writeCheck(coordinator: Int)
    /// A write ends, or an index is written, on the writer threads of coordinator incarnation
    /// `coordinator` (lost with it when it is killed).
    case writeDone(WrittenResult, coordinator: Int)
    case indexWritten(String, coordinator: Int)
    /// A coordinator's lease timer: a standby's acquire, a leader's renew or its lease's end.
    case leaseTick(coordinator: Int)
    /// An acquire (`renew` false) or renew request reaches the database; `sentAt` is the
    /// sender's clock when it left.
    case leaseRequest(coordinator: Int, renew: Bool, token: UInt64, sentAt: Double)
    /// The database's answer reaches the coordinator (nil: refused).
    case leaseAnswer(coordinator: Int, renew: Bool, grant: LeaseGrant?, sentAt: Double)
    /// A stopped coordinator continues (SIGCONT).
    case coordinatorResumes(coordinator: Int)
    /// A new coordinator process starts in `slot`, as a standby (after a kill or a stop).
    case coordinatorStarts(slot: Int)
    case fault
    /// A fault that strikes the leader, besides those of the fault mix (`Options.leaderFaultEvery`).
    case leaderFault
    case heal
}

/// One run of `ClusterSimulation`: the coordinators under test (each leader's core), the
/// simulated world around them, and the record the invariants are checked against. The cores'
/// shell: it takes a core's actions once each event is handled, and carries them out in the
/// simulated world (see `tellCore`). It owns all of the run's state, on one thread.
package final class SimulationRun {
    package let options: ClusterSimulation.Options
    package var random: SeededRandom
    package var agenda = SimulationAgenda<SimulationEvent>()
    /// Virtual microseconds since the start.
    package var time: Int64 = 0
    package let origin: MonotonicInstant
    /// The coordinator processes: one leads at a time, the others wait as standbys.
    package var coordinators: [SimulatedCoordinator] = []
    package var lastIncarnation = 0
    /// The slot of the process the workers' and clients' connections reach: the leader's, as a
    /// Service sends traffic to its ready pod; nil between leaders.
    package var endpoint: Int?
    package var workers: [SimulatedWorker] = []
    package var liveConnections: Set<Int> = []
    /// The coordinator incarnation each connection reaches (0: none leads; nobody reads it).
    package var connectionOwner: [Int: Int] = [:]
    private var lastConnection = 0
    /// When the last message on each connection arrives, each way: a connection keeps order.
    package var lastArrival: [Int: (toWorker: Int64, toCoordinator: Int64)] = [:]
    package var jobIDs: [String] = []
    package var healing = false
    /// What the coordinators' shared journal holds: every job, in submission order.
    package var journal: [String: JournaledJob] = [:]
    /// The finished jobs in the journal, the first to finish first (`Journal.idsInFinishOrder`).
    package var journalFinishOrder: [String] = []
    /// The journal's lease row, on the database's clock (`databaseSeconds`).
    package var leaseTable = LeaseTable()
    package let databaseClockOffset: Double
    package var writeTimeout: TimeInterval = 5

    // What the invariants are checked against.
    package var settled: Set<PhotoRef> = []
    package var sentAttempts: Set<SentAttempt> = []
    /// Outputs written, with the token of the leader that wrote each.
    package var written: [PhotoRef: UInt64] = [:]
    package var epochsSent: [String: [String: UInt64]] = [:]
    package var missingSince: [PhotoRef: Int64] = [:]
    package var violation: String?

    // What the run reports.
    package var steps = 0
    package var digest: UInt64 = 0xCBF2_9CE4_8422_2325
    package var trace: [String] = []
    package var tally = (killed: 0, paused: 0, cutOff: 0, forged: 0, coordinatorKilled: 0, drained: 0)
    /// How often each coordinator process read a hello from a worker process it had registered
    /// already, by "coordinator incarnation/worker incarnation" (see `checkRegistration`).
    package var registeredAgain: [String: Int] = [:]
    package var leadership = ClusterSimulation.LeadershipTally()

    package struct SentAttempt: Hashable {
        package let ref: PhotoRef
        package let attempt: UInt32
        package let worker: String
    }

    package init(options: ClusterSimulation.Options, origin: MonotonicInstant) {
        self.options = options
        self.origin = origin
        random = SeededRandom(seed: options.seed)
        databaseClockOffset = Double(Int.random(in: 0...100_000, using: &random))
    }

    /// The leader's core, while the leader the connections reach runs; nil between leaders and
    /// while it is stopped.
    package var core: CoordinatorCore? {
        guard let slot = endpoint, coordinators[slot].process == .running else { return nil }
        return coordinators[slot].core
    }

    package static let settings = CoordinatorCore.Settings(
        coordinatorID: "simulated", heartbeatInterval: 1, heartbeatLiveness: 3, maxAttempts: 3, retryBackoff: 0.25, maxWorkerLosses: 3,
        workerBudgets: WorkerBudgets(maxConcurrency: 8, assignmentTimeout: 20), resultLimit: 1 << 20,
        // One finished job kept: a run of a few jobs forgets some, while others still run.
        finishedJobsKept: 1)

    package var now: MonotonicInstant { origin + .microseconds(time) }
    package var seconds: Double { Double(time) / 1e6 }

    package func run() -> ClusterSimulation.Outcome {
        for slot in 0..<options.workers {
            workers.append(SimulatedWorker(id: "w\(slot)", concurrency: Int.random(in: 1...3, using: &random)))
            agenda.schedule(.workerStart(slot: slot), at: random.millis(0...200))
        }
        startCoordinators()
        for _ in 0..<Int.random(in: 1...3, using: &random) { submitJob() }
        agenda.schedule(.fault, at: random.millis(200...1500))
        if let every = options.leaderFaultEvery { agenda.schedule(.leaderFault, at: random.millis(500...Int64(every * 1000))) }
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
            if violation == nil { checkLeases() }
            if violation == nil, let core { checkState(of: core) }
            if healing, let core, jobIDs.allSatisfy({ core.jobs[$0]?.isFinished ?? true }) { break }
        }
        return ClusterSimulation.Outcome(
            seed: options.seed, steps: steps, simulatedSeconds: seconds, violation: violation, digest: digest, trace: trace, summary: summary(),
            faults: (tally.killed, tally.paused, tally.cutOff), leadership: leadership)
    }

    package func handle(_ event: SimulationEvent) {
        switch event {
        case .toCoordinator(let connection, let worker, let message, let photos):
            guard liveConnections.contains(connection), let slot = arrive(event, at: connectionOwner[connection] ?? 0) else { return }
            if case .hello(let hello) = message.body { checkRegistration(hello, by: slot) }
            tellCore(.fromWorker(id: worker, key: nil, message: message, photos: photos[...]), in: slot)
            tellCore(.workerMessagesDrained, in: slot)
            tellCore(.turnEnded, in: slot)
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
        case .coordinatorHeartbeat(let incarnation):
            guard let slot = arrive(event, at: incarnation) else { return }
            tellCore(.heartbeatTick(messagesWaiting: false), in: slot)
            tellCore(.turnEnded, in: slot)
            if endpoint == slot, let core { checkHeldAssignments(of: core) }
            agenda.schedule(event, at: time + 1_000_000)
        case .retryTick(let incarnation):
            guard let slot = arrive(event, at: incarnation) else { return }
            tellCore(.retryTick, in: slot)
            tellCore(.turnEnded, in: slot)
            agenda.schedule(event, at: time + 250_000)
        case .writeCheck(let incarnation):
            guard let slot = arrive(event, at: incarnation) else { return }
            tellCore(.writesOverdue(limit: writeTimeout), in: slot)
            tellCore(.turnEnded, in: slot)
            agenda.schedule(event, at: time + 1_000_000)
        case .writeDone(let write, let incarnation):
            guard let slot = arrive(event, at: incarnation) else { return }
            writeFinished(write, in: slot)
        case .indexWritten(let jobID, let incarnation):
            guard let slot = arrive(event, at: incarnation) else { return }
            coordinators[slot].indexesWritten.insert(jobID)
            tellCore(.indexWritten(jobID, problem: nil), in: slot)
            tellCore(.turnEnded, in: slot)
        case .leaseTick(let incarnation):
            guard let slot = arrive(event, at: incarnation) else { return }
            leaseTick(slot)
        case .leaseRequest(let incarnation, let renew, let token, let sentAt):
            leaseRequestArrives(from: incarnation, renew: renew, token: token, sentAt: sentAt)
        case .leaseAnswer(let incarnation, let renew, let grant, let sentAt):
            guard let slot = arrive(event, at: incarnation) else { return }
            leaseAnswered(slot, renew: renew, grant: grant, sentAt: sentAt)
        case .coordinatorResumes(let incarnation):
            resumeCoordinator(incarnation)
        case .coordinatorStarts(let slot):
            startCoordinator(slot)
        case .fault:
            guard !healing else { return }
            injectFault()
            agenda.schedule(.fault, at: time + random.millis(200...2500))
        case .leaderFault:
            guard !healing, let every = options.leaderFaultEvery else { return }
            leadershipFault()
            let mean = Int64(every * 1000)
            agenda.schedule(.leaderFault, at: time + random.millis(mean / 2...mean * 3 / 2))
        case .heal:
            heal()
        }
    }

    /// The slot of coordinator incarnation `incarnation` if it is there to handle `event` now;
    /// nil if it is gone, or stopped (then `event` waits in its inbox until it continues).
    private func arrive(_ event: SimulationEvent, at incarnation: Int) -> Int? {
        guard let slot = coordinators.firstIndex(where: { $0.incarnation == incarnation }), coordinators[slot].process != .down else { return nil }
        guard !coordinators[slot].isPaused else {
            coordinators[slot].inbox.append(event)
            return nil
        }
        return slot
    }

    // MARK: - The network

    /// A worker connects: it reaches the endpoint's process (or nobody, between leaders).
    package func openConnection() -> Int {
        lastConnection += 1
        liveConnections.insert(lastConnection)
        connectionOwner[lastConnection] = endpoint.map { coordinators[$0].incarnation } ?? 0
        return lastConnection
    }

    /// A worker's message leaves on its connection, after whatever it sent before; with no
    /// coordinator at the other end it waits in the worker's socket (`SimulatedWorker.unsent`).
    package func send(_ body: Photocluster_V1_WorkerToCoordinator.OneOf_Body, from slot: Int, photos: [Data] = []) {
        var message = Photocluster_V1_WorkerToCoordinator()
        message.body = body
        transmit(message, photos: photos, from: slot)
    }

    private func transmit(_ message: Photocluster_V1_WorkerToCoordinator, photos: [Data], from slot: Int) {
        let connection = workers[slot].connection
        guard connection != 0 else { return }
        guard liveConnections.contains(connection), connectionOwner[connection] ?? 0 != 0 else {
            if workers[slot].unsent.count < Self.sendHighWaterMark { workers[slot].unsent.append((message, photos)) }
            return
        }
        let arrival = max(lastArrival[connection]?.toCoordinator ?? 0, time + random.millis(0...15) + 50)
        lastArrival[connection, default: (0, 0)].toCoordinator = arrival
        agenda.schedule(.toCoordinator(connection: connection, worker: workers[slot].id, message, photos: photos), at: arrival)
    }

    /// libzmq's default `ZMQ_SNDHWM`, which the worker keeps: past it a DEALER drops what it sends.
    private static let sendHighWaterMark = 1000

    /// The worker in `slot` connects anew; what waited in its socket leaves first.
    package func reconnect(_ slot: Int) {
        workers[slot].connection = openConnection()
        let waiting = workers[slot].unsent
        workers[slot].unsent = []
        for (message, photos) in waiting { transmit(message, photos: photos, from: slot) }
    }

    // MARK: - The shell

    /// Some jobs have a client that hears of every photo (the path that settles photos one by
    /// one), the others only counts.
    package static func tellsEveryPhoto(of job: String) -> Bool { job.hasSuffix("1") }

    /// Hands `event` to the core of the coordinator in `slot` now, then carries out what it
    /// decided, in order, by the driver `CoordinatorNode.tellCore` uses: what the world answers
    /// (a batch refused) goes back to the core once the actions in hand are carried out. As the
    /// node, it first checks that the lease lets it act (and steps down if not).
    package func tellCore(_ event: CoordinatorEvent, in slot: Int) {
        let coordinator = coordinators[slot]
        guard let core = coordinator.core, leaderMayAct(slot) else { return }
        let incarnation = coordinator.incarnation
        coordinator.driver.tell(event, to: core, now: now, wallClock: Date(timeIntervalSince1970: seconds)) {
            perform($0, by: slot, incarnation: incarnation)
        }
    }

    /// A client's request: it reaches the leader the endpoint leads to, if one runs.
    package func tellLeader(_ event: CoordinatorEvent) {
        guard let slot = endpoint, coordinators[slot].process == .running else { return }
        tellCore(event, in: slot)
    }

    /// Carries out one action of the core in `slot`; answers whether it was done (false: a send
    /// that did not leave). A stopped process holds it until it continues; a process that
    /// stepped down meanwhile does nothing more.
    package func perform(_ action: CoordinatorAction, by slot: Int, incarnation: Int) -> Bool {
        let coordinator = coordinators[slot]
        guard coordinator.incarnation == incarnation, coordinator.lease != nil, let core = coordinator.core else { return true }
        if coordinator.isPaused {
            coordinator.held.append(action)
            return true
        }
        switch action {
        case .photosSettled, .journalLosses, .journalJobState, .jobFinished, .jobsForgotten:
            if case .beforeNextJournalWrite(let stop)? = coordinator.plannedStop {
                coordinator.plannedStop = nil
                pauseCoordinator(slot, for: stop)
                coordinator.held.append(action)
                return true
            }
        case .sendToWorker, .sendGraphs, .writeResult:
            // After a stop inside the event (see `PlannedStop`), the lease is checked again.
            guard leaderMayAct(slot) else { return true }
            checkActsUnderItsLease(slot, Self.actionName(action))
        default: break
        }
        noteAction(action)
        switch action {
        case .sendToWorker(let id, let body):
            checkEpoch(of: body, to: id)
            return routeToWorker(id, body, from: incarnation)
        case .sendGraphs(let id, let batch, let sequence):
            guard let message = try? Photocluster_V1_CoordinatorToWorker(serializedBytes: batch.message(sequence: sequence)),
                routeToWorker(id, message.body!, from: incarnation)
            else { return false }
            for (ref, attempt, _) in batch.sent { sentAttempts.insert(SentAttempt(ref: ref, attempt: attempt, worker: id)) }
            return true
        case .photosSettled(let jobID, let photos, _):
            guard journalWrite(by: slot, "\(photos.count) photo(s) of job \(jobID)") else { return true }
            photosSettled(jobID, photos, core: core)
        case .writeResult(let result, let worker, _, let targets):
            startWrite(result, from: worker, targets: targets, in: slot)
        case .removeOutputs(let write, let names):
            for target in write.targets where names.contains(target.name) { written.removeValue(forKey: PhotoRef(job: write.result.jobID, index: target.index)) }
        case .writeIndex(let jobID):
            startIndexWrite(jobID, in: slot)
        case .jobFinished(let job, let problem):
            jobFinished(job, problem: problem, in: slot)
        case .jobsForgotten(let forgotten):
            jobsForgotten(forgotten, in: slot)
        case .journalLosses(let job, let photo, let losses):
            guard journalWrite(by: slot, "the losses of photo \(photo) of job \(job)") else { return true }
            journal[job]?.losses[photo] = losses
        case .journalJobState(let jobID):
            guard journalWrite(by: slot, "job \(jobID)") else { return true }
            if let job = core.jobs[jobID] { journal[jobID]?.noteState(of: job) }
        case .jobPhase, .stageReported, .spansReported, .rejected, .refusedProtocol, .workersChanged, .count, .log:
            break
        }
        return true
    }

    /// A ROUTER sends to a peer only while its connection to this process is up; the message is
    /// then on its way.
    private func routeToWorker(_ id: String, _ body: Photocluster_V1_CoordinatorToWorker.OneOf_Body, from incarnation: Int) -> Bool {
        guard let slot = workers.firstIndex(where: { $0.id == id && $0.connection != 0 && connectionOwner[$0.connection] == incarnation }) else {
            return false
        }
        let connection = workers[slot].connection
        let arrival = max(lastArrival[connection]?.toWorker ?? 0, time + random.millis(0...15) + 50)
        lastArrival[connection, default: (0, 0)].toWorker = arrival
        agenda.schedule(.toWorker(slot: slot, connection: connection, body), at: arrival)
        return true
    }

    /// Photos settled, and journaled (the write was accepted): each settles once in the journal.
    private func photosSettled(_ jobID: String, _ photos: [(photo: PhotoRecord, worker: String?)], core: CoordinatorCore) {
        if let job = core.jobs[jobID] {
            for (photo, _) in photos { journal[jobID]?.photos[Int(photo.index)] = JournaledPhoto(photo, of: job) }
            journal[jobID]?.noteState(of: job)
        }
        for (photo, _) in photos {
            let ref = PhotoRef(job: jobID, index: photo.index)
            if !settled.insert(ref).inserted { return fail("photo \(photo.index) of job \(jobID) settled twice") }
            if photo.state == .done && written[ref] == nil { return fail("photo \(photo.index) of job \(jobID) is done without its output written") }
        }
    }

    private func startWrite(_ result: Photocluster_V1_PhotoResult, from worker: String, targets: [(index: UInt32, name: String)], in slot: Int) {
        let ref = PhotoRef(job: result.jobID, index: result.photoIndex)
        guard sentAttempts.contains(SentAttempt(ref: ref, attempt: result.attempt, worker: worker)) else {
            return fail("a result for attempt \(result.attempt) of photo \(result.photoIndex) of job \(result.jobID) from \(worker), which was never sent that attempt, is being written")
        }
        let token = coordinators[slot].lease?.token ?? 0
        for target in targets {
            let ref = PhotoRef(job: result.jobID, index: target.index)
            // A later leader may write again an output whose photo an earlier one never
            // journaled as settled (the file is replaced whole); one leader never writes twice.
            guard let writer = written[ref], writer == token || journal[ref.job]?.photos[Int(ref.index)] != nil else { continue }
            return fail("photo \(target.index) of job \(result.jobID) is written a second time")
        }
        // Most writes take milliseconds; a few fail, and a few hang past the write timeout.
        let hangs = random.chance(0.02)
        let errors: [Error?] = targets.map { _ in random.chance(0.02) ? SimulatedWriteFailure() : nil }
        let write = WrittenResult(result: result, worker: worker, targets: targets, errors: errors)
        agenda.schedule(.writeDone(write, coordinator: coordinators[slot].incarnation), at: time + (hangs ? random.millis(6000...9000) : random.millis(1...30)))
    }

    /// A write ends on the writer thread: its file is renamed into place only while the lease
    /// lets the leader act (a leader that may not act writes no output).
    private func writeFinished(_ write: WrittenResult, in slot: Int) {
        guard leaderMayAct(slot), coordinators[slot].core != nil, let token = coordinators[slot].lease?.token else { return }
        checkActsUnderItsLease(slot, "wrote an output")
        let refs = zip(write.targets, write.errors).filter { $0.1 == nil }.map { PhotoRef(job: write.result.jobID, index: $0.0.index) }
        for ref in refs { written[ref] = token }
        tellCore(.resultsWritten([write]), in: slot)
        // The core asks for the files of photos that settled meanwhile to be removed; none that
        // looks finished is left for a photo that did not end done (unless the leader lost the
        // lead meanwhile: then the next one runs the photo again and replaces the file).
        if coordinators[slot].lease != nil, let core = coordinators[slot].core {
            for ref in refs where written[ref] != nil {
                guard let photo = core.jobs[ref.job]?.photo(ref.index), photo.isSettled, photo.state != .done else { continue }
                return fail("the output of photo \(ref.index) of job \(ref.job), which ended \(photo.state), is left looking finished")
            }
        }
        tellCore(.turnEnded, in: slot)
    }

    package func fail(_ what: String) {
        guard violation == nil else { return }
        violation = "step \(steps) at \(String(format: "%.3f", seconds)) s: \(what)"
    }
}

package struct SimulatedWriteFailure: Error, CustomStringConvertible {
    package var description: String { "simulated disk error" }
}
