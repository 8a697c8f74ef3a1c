import Foundation
import PhotoClusterCore
import PhotoClusterScheduling

/// The whole cluster in one thread from one seed: coordinators that share one journal and its
/// lease (one leads with its `CoordinatorCore`, the others wait), simulated workers with
/// simulated stage times, a network that delays messages and loses what is in flight when a
/// connection breaks, and faults (workers killed, stopped, cut off and restarted under the same
/// or a new id; the leader killed, stopped past its lease, or handing over; clients that move
/// viewports, suspend and cancel; poison photos; writes that fail or hang). After every step it
/// checks the invariants (`SimulationRun+Invariants`, `+LeadershipInvariants`); the same seed
/// makes the same run, step for step.
public enum ClusterSimulation {
    public struct Options: Sendable {
        public var seed: UInt64
        /// Simulated seconds of faults before the cluster is healed and must finish every job.
        public var faultSeconds: Double
        public var workers: Int
        /// Coordinator processes on the one journal: a leader and its standbys.
        public var coordinators: Int
        /// Keep a line for each event and action (`cluster simulate --trace`).
        public var trace: Bool
        /// A bug put in on purpose, to show that the invariants catch it.
        public var plantedBug: PlantedBug?
        /// Strike the leader about this often (seconds), besides the fault mix's few.
        public var leaderFaultEvery: Double?

        public init(
            seed: UInt64, faultSeconds: Double = 20, workers: Int = 4, coordinators: Int = 2, trace: Bool = false, plantedBug: PlantedBug? = nil,
            leaderFaultEvery: Double? = nil
        ) {
            self.seed = seed
            self.faultSeconds = faultSeconds
            self.workers = max(1, workers)
            self.coordinators = max(1, coordinators)
            self.trace = trace
            self.plantedBug = plantedBug
            self.leaderFaultEvery = leaderFaultEvery.map { max(0.5, $0) }
        }
    }

    /// Bugs the simulator can put into leadership or a worker, each of which an invariant must catch.
    public enum PlantedBug: String, CaseIterable, Sendable {
        /// The journal accepts a write without checking its token against the lease row.
        case journalSkipsFence = "journal-skips-fence"
        /// A leader acts without asking its lease whether it may (`LeaderLease.mayAct`).
        case leaderIgnoresLease = "leader-ignores-lease"
        /// A leader counts its lease from the answer to its request, not from its sending.
        case leaseCountedFromAnswer = "lease-counted-from-answer"
        /// A worker's hello grants its whole window, forgetting the graphs it holds.
        case workerGrantsHeldSlots = "worker-grants-held-slots"
    }

    /// What leadership went through in a run.
    public struct LeadershipTally: Sendable, CustomStringConvertible {
        /// Leases granted to a coordinator after an earlier leader's.
        public var takeovers = 0
        /// Leaders stopped (SIGSTOP), for a moment or past their lease.
        public var leaderPauses = 0
        /// Leaders that released the lease on a clean stop.
        public var handOvers = 0
        /// Leaders that stepped down: a renew refused, a write fenced, a lease run out.
        public var stepDowns = 0
        /// Journal writes attempted, and those the fence refused.
        public var journalWrites = 0
        public var fencedWrites = 0

        public init() {}

        public var description: String {
            "\(takeovers) takeovers, \(leaderPauses) leader pauses, \(handOvers) hand-overs, \(stepDowns) step-downs, \(fencedWrites) fenced writes refused of \(journalWrites)"
        }
    }

    public struct Outcome: Sendable {
        public let seed: UInt64
        /// Events handled.
        public let steps: Int
        public let simulatedSeconds: Double
        /// The first invariant broken, with the step and time; nil when every one held.
        public let violation: String?
        /// A hash of every event and action, in order: two runs of a seed are the same run when
        /// their digests match.
        public let digest: UInt64
        public let trace: [String]
        /// Photos that ended done, failed and cancelled; workers killed, paused and cut off.
        public let summary: String
        /// Workers killed (poison photos too), stopped, and cut off for a moment.
        public let faults: (killed: Int, stopped: Int, cutOff: Int)
        public let leadership: LeadershipTally
    }

    /// Runs one seed. `origin` is the instant the simulated clock starts at: only the time since
    /// it counts, so any instant replays the same run (the caller reads the clock, not the core).
    public static func run(_ options: Options, from origin: MonotonicInstant) -> Outcome {
        SimulationRun(options: options, origin: origin).run()
    }

    /// The command that replays `seed` with a line per step.
    public static func replayCommand(seed: UInt64, options: Options) -> String {
        "SWIFT_DETERMINISTIC_HASHING=1 cluster simulate --seed \(seed) --fault-seconds \(options.faultSeconds) --workers \(options.workers) "
            + "--coordinators \(options.coordinators)\(options.leaderFaultEvery.map { " --leader-faults-every \($0)" } ?? "")"
            + "\(options.plantedBug.map { " --plant \($0.rawValue)" } ?? "") --trace"
    }
}
