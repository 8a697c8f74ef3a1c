import Foundation
import PhotoClusterCore
import PhotoClusterScheduling
import PhotoClusterTransport

/// Keeps a leader's lease: renews it every third of its length on a thread and a connection of
/// its own (a loop busy restoring a large journal must not lose the lease), and says whether the
/// coordinator may act now. Once the lease is lost — a renew refused because another coordinator
/// took over, no renew granted before the lease ran out, a journal write fenced, or a clean stop —
/// the coordinator never acts again (`LeaderLease`): a new process starts as a standby.
///
/// The lease's state is behind a lock: the keeper's thread renews it, the loop thread asks
/// `mayAct` before every turn, writer threads before every file. The keeper's connection (its
/// `LeaseStore`) belongs to its thread alone, which also releases the lease through it on a
/// clean stop: a leader holds two connections, the journal's and this one.
final class LeaseKeeper: @unchecked Sendable {
    let term: LeadershipTerm
    private let state: LockedBox<LeaderLease>
    /// The monotonic clock's zero for `LeaderLease`, which counts in seconds.
    private let origin = MonotonicInstant.now
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = LockedBox(false)
    private let finished = DispatchSemaphore(value: 0)
    private var started = false
    /// Told once, from whichever thread saw it first, why the lead was lost.
    private let onLost: @Sendable (String) -> Void
    /// Told, from the keeper's thread, of a renew that failed or was slow.
    private let report: @Sendable (String) -> Void
    private let lostReason = LockedBox<String?>(nil)

    init(term: LeadershipTerm, report: @escaping @Sendable (String) -> Void, onLost: @escaping @Sendable (String) -> Void) {
        self.term = term
        self.report = report
        self.onLost = onLost
        let grant = LeaseGrant(token: UInt64(term.lease.token), ttl: term.leaseSeconds)
        state = LockedBox(LeaderLease(
            grant, requestSent: term.requestSent.seconds(since: origin), margin: LeadershipTerm.margin(leaseSeconds: term.leaseSeconds)))
    }

    var token: Int64 { term.lease.token }

    func mayAct(at now: MonotonicInstant = .now) -> Bool {
        let seconds = now.seconds(since: origin)
        if state.withLock({ $0.mayAct(at: seconds) }) { return true }
        stepDown(because: lostReason.current ?? "its lease (token \(token)) ran out before a renew was granted")
        return false
    }

    /// Renews on a thread with its own connection to the journal's database, until `release`.
    func start() {
        started = true
        let thread = Thread { [self] in
            renewUntilStopped()
            finished.signal()
        }
        thread.name = "lease"
        thread.start()
    }

    /// No more acting, for `reason` (told to `onLost` the first time).
    func stepDown(because reason: String) {
        let first = lostReason.withLock { lost -> Bool in
            guard lost == nil else { return false }
            lost = reason
            return true
        }
        state.withLock { $0.stepDown() }
        wake.signal()
        if first { onLost(reason) }
    }

    /// A clean stop: the lease is released at once, so a standby takes over without waiting for
    /// it to expire. After the loop has stopped: nothing may be written once it is released.
    /// Returns once the keeper's thread has released it (on its own connection) and ended.
    func release() {
        stopped.withLock { $0 = true }
        state.withLock { $0.stepDown() }
        wake.signal()
        if started { finished.wait() }
    }

    /// The keeper's thread: `store` is its connection, used by no other thread.
    private func renewUntilStopped() {
        var store: LeaseStore?
        while !stopped.current && lostReason.current == nil {
            let now = MonotonicInstant.now.seconds(since: origin)
            let (due, next) = state.withLock { ($0.renewDue(at: now), $0.nextRenew) }
            guard due else {
                _ = wake.wait(timeout: .now() + max(0.01, next - now))
                continue
            }
            state.withLock { $0.renewSent(at: now) }
            do {
                if store == nil { store = try LeaseStore(uri: term.database) }
                if let lease = try store?.renew(token: token, ttl: term.leaseSeconds) {
                    state.withLock { $0.renewed(LeaseGrant(token: UInt64(lease.token), ttl: term.leaseSeconds), requestSent: now) }
                    let took = MonotonicInstant.now.seconds(since: origin) - now
                    if took > term.leaseSeconds / 3 {
                        report("renewing the lease took \(String(format: "%.1f", took)) s of its \(term.leaseSeconds) s (is the database or this host overloaded?)")
                    }
                } else {
                    stepDown(because: "another coordinator took the lease over (this one's token \(token) is no longer current)")
                }
            } catch {
                // Tried again a third of the lease later; if none is granted before it ends,
                // `mayAct` says so and the coordinator steps down.
                report("cannot renew the lease: \(error); trying again in \(String(format: "%.1f", term.leaseSeconds / 3)) s")
                store = nil
            }
        }
        // Stopped by `release` while still leading (a lost lease is not this one's to end).
        guard lostReason.current == nil else { return }
        do {
            if store == nil { store = try LeaseStore(uri: term.database) }
            try store?.release(token: token)
        } catch {
            // The lease then simply expires.
        }
    }
}

/// A result not written because this coordinator no longer leads.
struct LeadershipLost: Error, CustomStringConvertible {
    var description: String { "not written: this coordinator no longer leads (another took over the shared journal)" }
}
