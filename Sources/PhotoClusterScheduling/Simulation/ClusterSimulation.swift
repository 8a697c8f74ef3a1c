import Foundation
import PhotoClusterCore

/// The whole cluster in one thread from one seed: one `CoordinatorCore`, simulated workers with
/// simulated stage times, a network that delays messages and loses what is in flight when a
/// connection breaks, and faults (workers killed, stopped, cut off and restarted under the same
/// or a new id; clients that move viewports, suspend and cancel; poison photos; writes that fail
/// or hang). After every step it checks the invariants (`SimulationRun+Invariants`); the same
/// seed makes the same run, step for step.
public enum ClusterSimulation {
    public struct Options: Sendable {
        public var seed: UInt64
        /// Simulated seconds of faults before the cluster is healed and must finish every job.
        public var faultSeconds: Double
        public var workers: Int
        /// Keep a line for each event and action (`cluster simulate --trace`).
        public var trace: Bool

        public init(seed: UInt64, faultSeconds: Double = 20, workers: Int = 4, trace: Bool = false) {
            self.seed = seed
            self.faultSeconds = faultSeconds
            self.workers = max(1, workers)
            self.trace = trace
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
    }

    /// Runs one seed. `origin` is the instant the simulated clock starts at: only the time since
    /// it counts, so any instant replays the same run (the caller reads the clock, not the core).
    public static func run(_ options: Options, from origin: MonotonicInstant) -> Outcome {
        SimulationRun(options: options, origin: origin).run()
    }

    /// The command that replays `seed` with a line per step.
    public static func replayCommand(seed: UInt64, options: Options) -> String {
        "SWIFT_DETERMINISTIC_HASHING=1 cluster simulate --seed \(seed) --fault-seconds \(options.faultSeconds) --workers \(options.workers) --trace"
    }
}
