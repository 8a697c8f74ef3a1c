import Foundation

/// Token buckets per caller: requests a second, and job submissions a minute. Shared by the
/// HTTP server's threads; guarded by `lock`.
final class RateLimiter: @unchecked Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: TimeInterval

        /// Takes one token if there is one; else the seconds until there is.
        mutating func take(rate: Double, capacity: Double, now: TimeInterval) -> TimeInterval? {
            tokens = min(capacity, tokens + (now - updated) * rate)
            updated = now
            guard tokens < 1 else {
                tokens -= 1
                return nil
            }
            return (1 - tokens) / rate
        }
    }

    private let limits: APILimits
    private let lock = NSLock()
    private var requests: [String: Bucket] = [:]
    private var jobs: [String: Bucket] = [:]

    init(_ limits: APILimits) {
        self.limits = limits
    }

    /// Nil when `caller` may make this request now; else the seconds to wait (for `Retry-After`).
    func admit(_ caller: String, submitting: Bool, now: TimeInterval = ProcessInfo.processInfo.systemUptime) -> TimeInterval? {
        lock.lock()
        defer { lock.unlock() }
        var request = requests[caller] ?? Bucket(tokens: limits.burst, updated: now)
        if let wait = request.take(rate: limits.requestsPerSecond, capacity: limits.burst, now: now) {
            requests[caller] = request
            return wait
        }
        requests[caller] = request
        guard submitting else { return nil }
        let perSecond = limits.jobsPerMinute / 60
        var job = jobs[caller] ?? Bucket(tokens: max(1, limits.jobsPerMinute), updated: now)
        let wait = job.take(rate: perSecond, capacity: max(1, limits.jobsPerMinute), now: now)
        jobs[caller] = job
        return wait
    }
}
