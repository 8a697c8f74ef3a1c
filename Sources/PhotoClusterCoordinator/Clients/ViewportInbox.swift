import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Viewport changes on their way to the scheduler: the latest per job, applied once as the
/// loop's turn ends, and each client's allowance of changes per second. Loop-owned.
///
/// Only a job's latest viewport matters: each change the scheduler takes bumps the job's epoch
/// and sends control messages to every worker, so three clients sending 50,000 changes each
/// kept the loop (and `cluster status`) waiting for seconds and filled memory with control
/// messages nobody would read. Changes read in one turn replace each other here, and the
/// scheduler sees one per job per turn. A client past its allowance (a token bucket:
/// `perSecond` a second, as many at once) is refused with the limit, and its change is not
/// taken; a client that scrolls sends far fewer.
struct ViewportInbox {
    struct Pending {
        var viewport: Photocluster_V1_Viewport
        var arrivedAt: MonotonicInstant
    }

    /// Changes a client may make per second (and at once).
    let perSecond: Double
    /// The latest change per job not yet handed to the scheduler.
    private(set) var pending: [String: Pending] = [:]
    /// Each client's tokens and when they were last topped up; keyed by client key (or by
    /// connection without CURVE).
    private var allowances: [String: (tokens: Double, at: MonotonicInstant)] = [:]
    /// Changes taken, replaced by a later one before the scheduler saw them, and refused.
    private(set) var taken = 0, coalesced = 0, limited = 0
    /// Changes taken or refused since `flooded()` was last asked.
    private var recent = 0

    init(perSecond: Int) {
        self.perSecond = Double(max(1, perSecond))
    }

    /// Whether `client` may make one more change at `now`; spends a token when it may.
    mutating func admit(_ client: String, now: MonotonicInstant) -> Bool {
        recent += 1
        var allowance = allowances[client] ?? (perSecond, now)
        allowance.tokens = min(perSecond, allowance.tokens + now.seconds(since: allowance.at) * perSecond)
        allowance.at = now
        guard allowance.tokens >= 1 else {
            allowances[client] = allowance
            limited += 1
            return false
        }
        allowance.tokens -= 1
        allowances[client] = allowance
        return true
    }

    /// Keeps `viewport` as `job`'s latest, replacing one not yet applied.
    mutating func hold(_ viewport: Photocluster_V1_Viewport, for job: String, arrivedAt: MonotonicInstant) {
        taken += 1
        if pending.updateValue(Pending(viewport: viewport, arrivedAt: arrivedAt), forKey: job) != nil { coalesced += 1 }
    }

    /// The changes to apply, job by job (in job order, so runs repeat), and none left.
    mutating func takePending() -> [(job: String, Pending)] {
        guard !pending.isEmpty else { return [] }
        defer { pending = [:] }
        return pending.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Once a second: forgets clients whose allowance is full again, and answers whether more
    /// than a second's worth of changes for every client came in since the last call.
    mutating func closeSecond(now: MonotonicInstant) -> (busy: Int, flooded: Bool) {
        let count = recent
        recent = 0
        allowances = allowances.filter { now.seconds(since: $0.value.at) < 1 }
        return (count, count > Int(perSecond) * 4)
    }
}
