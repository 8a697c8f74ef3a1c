import Foundation
import PhotoClusterCore

/// What one worker may claim of the coordinator, whatever it says of itself: a worker key is
/// trusted to run photos, not to size its own share. A worker that claims more is held to these
/// bounds, and one that holds photos without working on them gives them back.
public struct WorkerBudgets: Sendable {
    /// The most stage threads a worker is believed to have (`--max-worker-concurrency`): its credit
    /// is bounded by the window of this many (`CreditWindow`), so a worker announcing a million
    /// cannot take a job's every photo.
    public var maxConcurrency: UInt32
    /// How long a worker may hold a photo without a word of progress on it
    /// (`--assignment-timeout`): then the photo goes to another worker and the attempt counts
    /// against the photo's `--max-attempts`, as a failure would. Paused while the photo's job is
    /// suspended (its photos wait on their workers by design).
    public var assignmentTimeout: TimeInterval
    /// The largest result a worker may send through the coordinator (`--max-result-bytes`); nil: the
    /// coordinator's message limit, the most one message can carry. A larger result fails its
    /// photo once, with the figures, on the worker that made it.
    public var maxResultBytes: Int64?

    public static let defaultMaxConcurrency: UInt32 = 256
    /// Longer than any photo takes with the workers' default stage time limit (120 s a stage):
    /// a photo that waits this long has been forgotten, not merely queued.
    public static let defaultAssignmentTimeout: TimeInterval = 900

    public init(
        maxConcurrency: UInt32 = WorkerBudgets.defaultMaxConcurrency,
        assignmentTimeout: TimeInterval = WorkerBudgets.defaultAssignmentTimeout,
        maxResultBytes: Int64? = nil
    ) {
        self.maxConcurrency = max(1, maxConcurrency)
        self.assignmentTimeout = max(0.1, assignmentTimeout)
        self.maxResultBytes = maxResultBytes
    }

    /// The most graphs a worker that announced `concurrency` stage threads may hold at once.
    package func creditLimit(announced concurrency: UInt32) -> Int {
        CreditWindow.graphs(concurrency: Int(min(max(1, concurrency), maxConcurrency)))
    }

    /// The largest result that may pass through a coordinator whose messages carry at most
    /// `messageLimit` bytes.
    package func resultLimit(messageLimit: Int64) -> Int64 {
        min(maxResultBytes ?? messageLimit, messageLimit)
    }
}
