import Foundation
import PhotoClusterScheduling

/// One coordinator process of a simulated run: a standby that polls for the lease, or a leader
/// with its own `CoordinatorCore` restored from the shared journal. Owned by its
/// `SimulationRun`, on the run's one thread.
package final class SimulatedCoordinator {
    package enum Process: Equatable {
        case running
        /// Stopped (SIGSTOP) until then: it handles nothing; what reaches it waits in `inbox`.
        case paused(until: Int64)
        /// Killed, or gone after stepping down, until it starts again as a standby.
        case down
    }

    package enum Role {
        case standby(LeaseCandidate)
        case leader(LeaderLease)
        /// Lost its leadership (a renew refused, a write fenced, its lease run out): it acts no
        /// more, and this incarnation ends.
        case steppedDown
    }

    /// Where a planned stop strikes, so that a stop falls where it matters.
    package enum PlannedStop {
        /// Before the leader's next journal write, after the shell checked its lease for the
        /// event: the write is sent when it wakes, with its token.
        case beforeNextJournalWrite(microseconds: Int64)
        /// Just after the leader sends a renew: its answer waits for it to wake.
        case afterNextRenew(microseconds: Int64)
    }

    /// "c0", "c1": the holder name in the lease row.
    package let name: String
    /// Unique in the run, so a timer, write or answer of an earlier process is recognised.
    package var incarnation: Int
    package var process: Process = .running
    package var role: Role
    /// The leader's core; nil for a standby.
    package var core: CoordinatorCore?
    /// Tells its core: the driver `CoordinatorNode.tellCore` uses too.
    package let driver = CoreDriver()
    /// Its monotonic clock reads the run's time plus this (processes' clocks do not agree).
    package let clockOffset: Double
    /// Events that reached it while it was stopped, handled in order when it wakes.
    package var inbox: [SimulationEvent] = []
    /// Actions of the event it was stopped in, carried out when it wakes.
    package var held: [CoordinatorAction] = []
    package var plannedStop: PlannedStop?
    /// The indexes its writers wrote, and when each was asked for (the run's time): a job ends
    /// with its index written, or without it only once the write timeout has passed.
    package var indexesWritten: Set<String> = []
    package var indexRequestedAt: [String: Int64] = [:]

    package init(name: String, incarnation: Int, clockOffset: Double, candidate: LeaseCandidate) {
        self.name = name
        self.incarnation = incarnation
        self.clockOffset = clockOffset
        role = .standby(candidate)
    }

    package var lease: LeaderLease? {
        if case .leader(let lease) = role { return lease }
        return nil
    }

    package var isPaused: Bool {
        if case .paused = process { return true }
        return false
    }

    /// Its own clock, in seconds, at the run's `time` (microseconds).
    package func local(_ time: Int64) -> Double { Double(time) / 1e6 + clockOffset }

    /// The run's time at which its clock reads `seconds`.
    package func runTime(atLocal seconds: Double) -> Int64 { Int64(((seconds - clockOffset) * 1e6).rounded(.up)) }
}
