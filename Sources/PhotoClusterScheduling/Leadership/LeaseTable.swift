/// The leadership row of the journal's database (`token`, `holder`, `expires_at`) and the rules
/// every statement on it follows, with all times on the database server's clock (seconds). The
/// simulator's journal keeps one; the PostgreSQL journal implements the same rules in SQL. Its
/// owner is whoever owns the journal (the simulated run, or the database).
package struct LeaseTable: Equatable, Sendable {
    /// The token of the newest leader; 0 before the first.
    package private(set) var token: UInt64 = 0
    /// Who holds the lease; nil when nobody has yet, or its holder released it.
    package private(set) var holder: String?
    /// When the lease expires, by the database's clock.
    package private(set) var expiresAt: Double = 0

    package init() {}

    /// Whether nobody may act under the row's token any longer: released, never held, or past
    /// its expiry.
    package func isFree(at now: Double) -> Bool { holder == nil || now >= expiresAt }

    /// **Acquire** succeeds only when the lease is free (expired, released or never held): the
    /// token grows by one, so every write of an earlier leader fails the fence from now on.
    /// A lease still running is refused, even to its own holder (which renews instead).
    package mutating func acquire(by candidate: String, ttl: Double, at now: Double) -> LeaseGrant? {
        guard isFree(at: now) else { return nil }
        token += 1
        holder = candidate
        expiresAt = now + ttl
        return LeaseGrant(token: token, ttl: ttl)
    }

    /// **Renew** succeeds only for the holder of the current token, and runs the lease `ttl` from
    /// now. A lease that expired but that nobody took since is renewed too: its token is still
    /// the newest, so no other leader can have written.
    package mutating func renew(by holder: String, token: UInt64, ttl: Double, at now: Double) -> LeaseGrant? {
        guard token == self.token, self.holder == holder else { return nil }
        expiresAt = now + ttl
        return LeaseGrant(token: token, ttl: ttl)
    }

    /// **Release**, on a clean stop: the holder of the current token gives the lease up at once,
    /// so a standby need not wait for it to expire. Anything else is ignored.
    package mutating func release(by holder: String, token: UInt64, at now: Double) {
        guard token == self.token, self.holder == holder else { return }
        self.holder = nil
        expiresAt = now
    }

    /// **Fence**: a journal write under `token` is accepted only if the row still carries that
    /// token and someone holds it, checked in the write's own transaction. A leader that was
    /// paused past its lease, and whose successor acquired it, has an old token: every write it
    /// tries fails, and it steps down. A released lease accepts no write either.
    package func fence(_ token: UInt64) -> Bool {
        token != 0 && token == self.token && holder != nil
    }
}
