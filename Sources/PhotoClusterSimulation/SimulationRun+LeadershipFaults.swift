import Foundation
import PhotoClusterCore
import PhotoClusterScheduling

/// The faults that strike the leader: killed (its lease expires, a standby takes over), stopped
/// (SIGSTOP, a long pause: it wakes with its messages, timers and lease answers due, and must
/// find it may not act, its writes fenced), and a clean hand-over (it releases the lease).
extension SimulationRun {
    package func leadershipFault() {
        guard let slot = endpoint, coordinators[slot].process == .running, coordinators[slot].lease != nil else { return }
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<3:
            killCoordinator(slot)
        case 3..<8:
            // Most stops outlast the lease; the rest end before anyone may take over.
            let long = random.chance(0.7)
            let lease = Int64(Self.leaseTTL * 1000)
            let stop = long ? random.millis((lease + 500)...(lease + 5000)) : random.millis(100...1500)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: pauseCoordinator(slot, for: stop)
            case 1: coordinators[slot].plannedStop = .beforeNextJournalWrite(microseconds: stop)
            default: coordinators[slot].plannedStop = .afterNextRenew(microseconds: stop)
            }
        default:
            handOver(slot)
        }
    }

    /// SIGKILL: what was in memory is gone; the lease stays until it expires.
    package func killCoordinator(_ slot: Int) {
        tally.coordinatorKilled += 1
        noteRun("\(coordinators[slot].name) is killed")
        end(slot, restartAfter: random.millis(300...3000))
    }

    /// A clean stop (an upgrade): the leader releases the lease, so a standby need not wait for
    /// it to expire.
    package func handOver(_ slot: Int) {
        let coordinator = coordinators[slot]
        guard let lease = coordinator.lease else { return }
        leadership.handOvers += 1
        noteRun("\(coordinator.name) stops cleanly and releases the lease")
        leaseTable.release(by: holder(of: coordinator), token: lease.token, at: databaseSeconds)
        end(slot, restartAfter: random.millis(300...3000))
    }

    /// SIGSTOP for `duration` microseconds: the process handles nothing until then.
    package func pauseCoordinator(_ slot: Int, for duration: Int64) {
        let coordinator = coordinators[slot]
        guard coordinator.process == .running else { return }
        leadership.leaderPauses += 1
        noteRun("\(coordinator.name) is stopped for \(Double(duration) / 1e6) s")
        coordinator.process = .paused(until: time + duration)
        agenda.schedule(.coordinatorResumes(coordinator: coordinator.incarnation), at: time + duration)
    }

    /// SIGCONT: the actions it was stopped amid are carried out (a journal write with its token),
    /// then what reached it meanwhile, in order.
    package func resumeCoordinator(_ incarnation: Int) {
        guard let slot = coordinators.firstIndex(where: { $0.incarnation == incarnation }), coordinators[slot].isPaused else { return }
        let coordinator = coordinators[slot]
        coordinator.process = .running
        if endpoint == slot { missingSince = [:] }
        let held = coordinator.held
        coordinator.held = []
        for action in held { _ = perform(action, by: slot, incarnation: incarnation) }
        let inbox = coordinator.inbox
        coordinator.inbox = []
        for event in inbox { handle(event) }
        if endpoint == slot, coordinators[slot].core != nil, coordinators[slot].process == .running { tellCore(.turnEnded, in: slot) }
    }
}
