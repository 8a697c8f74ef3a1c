/// The standby's side of the lease: a coordinator that does not lead tries to acquire the lease
/// about every `ttl / 3`, which the database grants only once the lease has expired or been
/// released (see `LeaseTable.acquire`). A grant makes it the leader (`LeaderLease`), counted from
/// the moment it sent the request that won.
package struct LeaseCandidate: Equatable, Sendable {
    package let ttl: Double
    package let margin: Double
    /// When the next acquire request is due (local monotonic seconds).
    package private(set) var nextAttempt: Double

    /// A standby that starts at `now` tries at once.
    package init(ttl: Double, margin: Double, startingAt now: Double) {
        self.ttl = ttl
        self.margin = margin
        nextAttempt = now
    }

    package var pollInterval: Double { ttl / 3 }

    package func acquireDue(at now: Double) -> Bool { now >= nextAttempt }

    /// An acquire request leaves at `now`.
    package mutating func acquireSent(at now: Double) {
        nextAttempt = now + pollInterval
    }

    /// The acquire sent at `requestSent` was granted: the lease this standby now leads under.
    package func lead(with grant: LeaseGrant, requestSent: Double) -> LeaderLease {
        LeaderLease(grant, requestSent: requestSent, margin: margin)
    }
}
