import Foundation

/// Rejected worker reports, for log lines that stay readable when a worker sends thousands: the
/// first rejection of a worker is logged at once, later ones as a count at most once per
/// `interval`. Loop-owned.
struct RejectionLog {
    static let interval: TimeInterval = 10

    private var lastLogged: [String: Date] = [:]
    private var unlogged: [String: Int] = [:]

    /// Whether to log this rejection now, and how many of the worker's went unlogged before it.
    mutating func shouldLog(worker: String, now: Date = Date()) -> (log: Bool, unlogged: Int) {
        if let last = lastLogged[worker], now.timeIntervalSince(last) < Self.interval {
            unlogged[worker, default: 0] += 1
            return (false, 0)
        }
        lastLogged[worker] = now
        return (true, unlogged.removeValue(forKey: worker) ?? 0)
    }
}
