/// The leader's side of the lease, as a value with no clock: its owner (the coordinator node's
/// leadership loop, or the simulator for a simulated coordinator) passes in its own monotonic
/// time, in seconds, and tells it what became of each renew.
///
/// The rules:
/// - **Counted from the request.** The lease runs from the moment the acquire or renew request
///   was *sent*, by the leader's own clock, never from when the answer came: the database grants
///   `ttl` from the moment it handled the request, which is later, so the leader's local deadline
///   is never later than the database's expiry (clock rates aside, which `margin` covers).
/// - **Acting.** The leader acts (sends graphs, writes outputs, journals) only while
///   `mayAct(at:)`: before `requestSent + ttl − margin`.
/// - **Renewing.** A renew is due every `ttl / 3` from the last granted request, and again every
///   `ttl / 3` while none is answered, so two may fail before the lease runs out.
/// - **Stepping down is for ever.** A renew refused (another holds the token) or failed (no
///   answer), or a journal write refused by the fence, ends this incarnation's leadership: it
///   never acts again, even if a later renew would have been granted. Its state is not to be
///   trusted (another leader may have moved the jobs on); a new incarnation starts as a standby.
package struct LeaderLease: Equatable, Sendable {
    package let token: UInt64
    package let ttl: Double
    /// Seconds taken off the local deadline for clock drift and scheduling delays.
    package let margin: Double
    /// The local time the last granted acquire or renew request was sent.
    package private(set) var requestSent: Double
    /// When the next renew request is due.
    package private(set) var nextRenew: Double
    package private(set) var steppedDown = false

    /// A lease granted to a request sent at `requestSent` (local monotonic seconds).
    package init(_ grant: LeaseGrant, requestSent: Double, margin: Double) {
        token = grant.token
        ttl = grant.ttl
        self.margin = margin
        self.requestSent = requestSent
        nextRenew = requestSent + grant.ttl / 3
    }

    /// The local instant after which the leader may no longer act, unless a renew is granted.
    package var deadline: Double { requestSent + ttl - margin }

    package func mayAct(at now: Double) -> Bool { !steppedDown && now < deadline }

    package func renewDue(at now: Double) -> Bool { !steppedDown && now >= nextRenew }

    /// A renew request leaves at `now`: the next is due a third of the lease later if this one
    /// is not answered by then.
    package mutating func renewSent(at now: Double) {
        nextRenew = now + ttl / 3
    }

    /// The renew sent at `requestSent` was granted with `grant`: the lease now runs from then.
    /// A grant under another token is not this lease's (it cannot happen with a correct lease
    /// row), so the leader steps down rather than trust it.
    package mutating func renewed(_ grant: LeaseGrant, requestSent sent: Double) {
        guard !steppedDown else { return }
        guard grant.token == token else { return stepDown() }
        requestSent = max(requestSent, sent)
        nextRenew = requestSent + ttl / 3
    }

    /// A renew refused or failed, a write fenced, or a clean stop: no more acting, ever.
    package mutating func stepDown() {
        steppedDown = true
    }
}
