import Foundation
import PhotoClusterCore
import PhotoClusterScheduling

/// Leadership: coordinators that share one journal and its lease row (`LeaseTable`, on the
/// database's clock), each with its own clock. A standby polls for the lease; the one it is
/// granted to restores the jobs from the journal into a new `CoordinatorCore`, as
/// `CoordinatorNode.start` does, and the workers' connections reach it. A leader renews; it acts
/// only while its lease lets it by its own clock (`LeaderLease.mayAct`), and every journal write
/// goes through the row's fence. One that may not act, whose renew is refused or whose write is
/// fenced steps down: its process ends and starts again as a standby.
extension SimulationRun {
    /// Seconds a lease lasts, and what a leader takes off its own deadline.
    package static let leaseTTL = 3.0
    package static let leaseMargin = 0.25

    /// The database server's clock.
    package var databaseSeconds: Double { seconds + databaseClockOffset }

    /// The first coordinator acquires the free lease as it starts; the others wait as standbys.
    package func startCoordinators() {
        for slot in 0..<options.coordinators {
            lastIncarnation += 1
            let offset = Double(Int.random(in: 0...1_000_000, using: &random)) / 1000
            let coordinator = SimulatedCoordinator(
                name: "c\(slot)", incarnation: lastIncarnation, clockOffset: offset,
                candidate: LeaseCandidate(ttl: Self.leaseTTL, margin: Self.leaseMargin, startingAt: offset))
            coordinators.append(coordinator)
            if slot == 0, let grant = leaseTable.acquire(by: holder(of: coordinator), ttl: Self.leaseTTL, at: databaseSeconds) {
                coordinator.role = .leader(LeaderLease(grant, requestSent: coordinator.local(time), margin: Self.leaseMargin))
                takeOver(slot)
            }
            agenda.schedule(.leaseTick(coordinator: coordinator.incarnation), at: time)
        }
    }

    /// A new process in `slot` (after a kill or a step down), as a standby.
    package func startCoordinator(_ slot: Int) {
        let coordinator = coordinators[slot]
        guard coordinator.process == .down else { return }
        lastIncarnation += 1
        coordinator.incarnation = lastIncarnation
        coordinator.process = .running
        coordinator.role = .standby(LeaseCandidate(ttl: Self.leaseTTL, margin: Self.leaseMargin, startingAt: coordinator.local(time)))
        agenda.schedule(.leaseTick(coordinator: coordinator.incarnation), at: time)
    }

    /// The holder name in the lease row: the process, not just its slot.
    package func holder(of coordinator: SimulatedCoordinator) -> String { "\(coordinator.name)/\(coordinator.incarnation)" }

    // MARK: - The lease protocol

    package func leaseTick(_ slot: Int) {
        let coordinator = coordinators[slot]
        let local = coordinator.local(time)
        switch coordinator.role {
        case .standby(var candidate):
            if candidate.acquireDue(at: local) {
                candidate.acquireSent(at: local)
                coordinator.role = .standby(candidate)
                sendLeaseRequest(from: coordinator, renew: false, token: 0, sentAt: local)
            }
            // Never at the same instant: the clocks' sums may round a hair short of the due time.
            agenda.schedule(.leaseTick(coordinator: coordinator.incarnation), at: max(time + 1, coordinator.runTime(atLocal: candidate.nextAttempt)))
        case .leader(var lease):
            guard leaderMayAct(slot) else { return }
            if lease.renewDue(at: local) {
                lease.renewSent(at: local)
                coordinator.role = .leader(lease)
                sendLeaseRequest(from: coordinator, renew: true, token: lease.token, sentAt: local)
                if case .afterNextRenew(let stop)? = coordinator.plannedStop {
                    coordinator.plannedStop = nil
                    pauseCoordinator(slot, for: stop)
                }
            }
            // The next renew, or the lease's end if no renew is granted by then.
            let next = max(min(lease.nextRenew, lease.deadline), local + 0.001)
            agenda.schedule(.leaseTick(coordinator: coordinator.incarnation), at: coordinator.runTime(atLocal: next))
        case .steppedDown:
            break
        }
    }

    /// A request travels to the database in milliseconds, now and then (a busy server) in more
    /// than a second.
    private func databaseLatency() -> Int64 {
        random.chance(0.03) ? random.millis(300...1500) : random.millis(1...20)
    }

    private func sendLeaseRequest(from coordinator: SimulatedCoordinator, renew: Bool, token: UInt64, sentAt: Double) {
        let request = SimulationEvent.leaseRequest(coordinator: coordinator.incarnation, renew: renew, token: token, sentAt: sentAt)
        agenda.schedule(request, at: time + databaseLatency())
    }

    /// The database handles the request by its own clock, and answers.
    package func leaseRequestArrives(from incarnation: Int, renew: Bool, token: UInt64, sentAt: Double) {
        guard let coordinator = coordinators.first(where: { $0.incarnation == incarnation }) else { return }
        let holder = holder(of: coordinator)
        let grant =
            renew
            ? leaseTable.renew(by: holder, token: token, ttl: Self.leaseTTL, at: databaseSeconds)
            : leaseTable.acquire(by: holder, ttl: Self.leaseTTL, at: databaseSeconds)
        let answer = SimulationEvent.leaseAnswer(coordinator: incarnation, renew: renew, grant: grant, sentAt: sentAt)
        agenda.schedule(answer, at: time + databaseLatency())
    }

    package func leaseAnswered(_ slot: Int, renew: Bool, grant: LeaseGrant?, sentAt: Double) {
        let coordinator = coordinators[slot]
        // The lease counts from the request's sending; the planted bug counts it from the answer.
        let from = options.plantedBug == .leaseCountedFromAnswer ? coordinator.local(time) : sentAt
        switch coordinator.role {
        case .standby(let candidate):
            guard !renew, let grant else { return }
            coordinator.role = .leader(candidate.lead(with: grant, requestSent: from))
            takeOver(slot)
        case .leader(var lease):
            guard renew else { return }
            guard let grant else { return stepDown(slot) }
            lease.renewed(grant, requestSent: from)
            coordinator.role = .leader(lease)
            if lease.steppedDown { stepDown(slot) }
        case .steppedDown:
            break
        }
    }

    // MARK: - Leading

    /// The coordinator in `slot` was granted the lease: it restores every job from the journal
    /// into a new core, and the workers' connections now reach it.
    package func takeOver(_ slot: Int) {
        let coordinator = coordinators[slot]
        if (coordinator.lease?.token ?? 0) > 1 { leadership.takeovers += 1 }
        noteRun("\(coordinator.name)#\(coordinator.incarnation) leads under token \(coordinator.lease?.token ?? 0), restoring the jobs from the journal")
        endpoint = slot
        missingSince = [:]
        // Every connection breaks (the old leader's sockets are gone, or it is stopped past the
        // workers' heartbeats); workers that run connect to the new leader, a stopped one does
        // when it resumes.
        liveConnections.removeAll()
        connectionOwner = [:]
        for worker in workers.indices { workers[worker].connection = 0 }
        coordinator.core = CoordinatorCore(settings: Self.settings, now: now)
        coordinator.indexesWritten = []
        coordinator.indexRequestedAt = [:]
        // The core picks each journaled job up where it stopped (see `CoordinatorCore+Lifecycle`).
        let restored = jobIDs.compactMap { journal[$0] }.map { Job.restore($0, place: nil, now: Date(timeIntervalSince1970: 0)) }
        tellCore(.jobsRestored(restored, finishOrder: journalFinishOrder), in: slot)
        guard coordinator.lease != nil, let core = coordinator.core else { return }
        // Their clients watch them again.
        for id in jobIDs where core.jobs[id] != nil && Self.tellsEveryPhoto(of: id) { tellCore(.clientsHearEveryPhoto(job: id, true), in: slot) }
        for worker in workers.indices where workers[worker].process == .running { reconnect(worker) }
        agenda.schedule(.coordinatorHeartbeat(coordinator: coordinator.incarnation), at: time + 1_000_000)
        agenda.schedule(.retryTick(coordinator: coordinator.incarnation), at: time + 250_000)
        agenda.schedule(.writeCheck(coordinator: coordinator.incarnation), at: time + 1_000_000)
        if healing { clientsLetJobsRun() }
    }

    /// Whether the leader in `slot` may act now by its own clock; if not, it steps down. The
    /// planted bug `leaderIgnoresLease` never looks.
    package func leaderMayAct(_ slot: Int) -> Bool {
        let coordinator = coordinators[slot]
        guard coordinator.process == .running, let lease = coordinator.lease else { return false }
        if options.plantedBug == .leaderIgnoresLease || lease.mayAct(at: coordinator.local(time)) {
            // Checked as it acts too, not only after the step: it may step down within the step.
            checkLeases()
            return true
        }
        stepDown(slot)
        return false
    }

    /// A journal write of the leader in `slot`, under its token: the journal records it, and
    /// accepts it only if the lease row still carries that token (the fence, in the write's own
    /// transaction). Refused, the leader steps down. The planted bug `journalSkipsFence` accepts
    /// every write.
    package func journalWrite(by slot: Int, _ what: String) -> Bool {
        let coordinator = coordinators[slot]
        guard let token = coordinator.lease?.token else { return false }
        leadership.journalWrites += 1
        let current = leaseTable.fence(token)
        guard current || options.plantedBug == .journalSkipsFence else {
            leadership.fencedWrites += 1
            noteRun("the journal refuses \(what) from \(coordinator.name) under token \(token): the row carries \(leaseTable.token)")
            stepDown(slot)
            return false
        }
        if !current {
            fail("the journal accepted a write (\(what)) from \(coordinator.name) under token \(token), while the lease row carries token \(leaseTable.token)")
        }
        return true
    }

    /// The leader in `slot` gives up: it acts no more, and its process ends (its supervisor
    /// starts a new one, a standby).
    package func stepDown(_ slot: Int) {
        let coordinator = coordinators[slot]
        guard coordinator.lease != nil else { return }
        leadership.stepDowns += 1
        noteRun("\(coordinator.name)#\(coordinator.incarnation) steps down")
        coordinator.role = .steppedDown
        end(slot, restartAfter: random.millis(300...1000))
    }

    /// The process in `slot` is gone: its core, its timers and writes, its connections.
    package func end(_ slot: Int, restartAfter delay: Int64) {
        let coordinator = coordinators[slot]
        if case .leader = coordinator.role { coordinator.role = .steppedDown }
        coordinator.process = .down
        coordinator.core = nil
        coordinator.inbox = []
        coordinator.held = []
        coordinator.plannedStop = nil
        coordinator.indexesWritten = []
        coordinator.indexRequestedAt = [:]
        for (connection, owner) in connectionOwner where owner == coordinator.incarnation { liveConnections.remove(connection) }
        if endpoint == slot { endpoint = nil }
        agenda.schedule(.coordinatorStarts(slot: slot), at: time + delay)
    }
}
