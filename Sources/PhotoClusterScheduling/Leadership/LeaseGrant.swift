/// What the lease row answers to a successful acquire or renew: the fencing token the holder
/// writes under, and how long the database keeps the lease from the moment it granted it.
package struct LeaseGrant: Equatable, Sendable {
    /// Grows by one with every new leader; every journal write carries it (see `LeaseTable.fence`).
    package let token: UInt64
    /// Seconds, on the database's clock, from the grant to the lease's expiry.
    package let ttl: Double

    package init(token: UInt64, ttl: Double) {
        self.token = token
        self.ttl = ttl
    }
}
