import Foundation

/// The time limit every stage of a photo runs under (`cluster worker --stage-timeout`), and the
/// words for a stage that ran past it.
public enum StageTimeLimit {
    /// Long enough for any built-in filter on the largest photo a worker decodes (100 MP) on a
    /// slow, shared core; short enough that a stuck photo gives its slot back within minutes.
    public static let defaultSeconds: TimeInterval = 120

    /// "ran past its time limit of 120 s (raise it with `cluster worker --stage-timeout SECONDS`)".
    public static func overrun(_ limit: TimeInterval) -> String {
        "ran past its time limit of \(seconds(limit)) s (raise it with `cluster worker --stage-timeout SECONDS`)"
    }

    public static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() && value < 1e9 ? String(Int(value)) : String(format: "%.3g", value)
    }
}

/// When a stage that starts now must have ended, on the monotonic clock (see MonotonicTime.swift:
/// a wall-clock step neither ends a stage early nor lets it run on).
public struct StageDeadline: Sendable {
    public let limit: TimeInterval
    private let end: MonotonicInstant

    public init(limit: TimeInterval) {
        self.limit = limit
        self.end = ContinuousClock.now.adding(seconds: max(0, min(limit, 1e9)))
    }

    public var hasPassed: Bool { ContinuousClock.now >= end }
}
