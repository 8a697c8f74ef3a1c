import Foundation

/// Who leads the coordinators that share a PostgreSQL database, until when, and with which
/// fencing token.
public struct Lease: Equatable, Sendable {
    /// Grows with every new leader; the leader's journal writes carry it (`fencingToken`).
    public let token: Int64
    public let holder: String
    /// Where the leader takes clients and workers.
    public let endpoint: String
    /// When this leader acquired the lease, by the database server's clock.
    public let since: Date
    /// When the lease lapses unless renewed, by the database server's clock.
    public let expiresAt: Date
}

/// The leadership lease: the one row of `leadership`, read and changed in single statements, all
/// times on the database server's clock (the coordinators' clocks may differ). PostgreSQL only.
///
/// Times are `clock_timestamp()`, not `now()`: `now()` is when the statement's transaction
/// began, and a takeover's statement may wait seconds for the row (a frozen leader's open
/// transaction holds it `FOR KEY SHARE` until the server ends that session), which would grant a
/// lease already partly or wholly spent.
///
/// Give it a connection of its own, not the fenced journal's: its statements are never fenced
/// (taking the lease is how a token becomes current). Used from one thread at a time, like the
/// connection.
///
/// It expects the tables to exist: a process makes them once (`PostgresSchema.create`, which the
/// standby runs before its first acquire), not with every connection it opens.
public final class LeaseStore {
    public let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public convenience init(uri: String) throws {
        self.init(database: try PostgresDatabase(uri: uri))
    }

    /// Takes the lease if nobody holds it or it has lapsed (expired or released), with a token
    /// one above the last; nil if another holds it still.
    public func acquire(holder: String, endpoint: String, ttl: TimeInterval) throws -> Lease? {
        // `FOR UPDATE` first: it waits for every leader's write in flight (their fence holds the
        // row `FOR KEY SHARE`), and the update's own lock would not (see `PostgresSchema`).
        try lease(
            """
            WITH locked AS (SELECT id FROM leadership WHERE id = 1 FOR UPDATE)
            UPDATE leadership SET token = token + 1, holder = ?, endpoint = ?, since = clock_timestamp(),
                expires_at = clock_timestamp() + ? * interval '1 second'
            FROM locked WHERE leadership.id = locked.id AND leadership.expires_at <= clock_timestamp()
            RETURNING \(Self.columns)
            """, [.text(holder), .text(endpoint), .double(ttl)])
    }

    /// Extends the lease by `ttl` from now while `token` is still current (nobody took over,
    /// even if it lapsed meanwhile); nil: the lease was lost, stop leading.
    public func renew(token: Int64, ttl: TimeInterval) throws -> Lease? {
        try lease(
            "UPDATE leadership SET expires_at = clock_timestamp() + ? * interval '1 second' WHERE id = 1 AND token = ? RETURNING \(Self.columns)",
            [.double(ttl), .int(token)])
    }

    /// Ends the lease at once (a coordinator stopping cleanly), so another takes over without
    /// waiting for it to expire. Does nothing if `token` is no longer current.
    public func release(token: Int64) throws {
        try database.unfencedQuery("UPDATE leadership SET expires_at = clock_timestamp() WHERE id = 1 AND token = ? AND expires_at > clock_timestamp()", [.int(token)])
    }

    /// The lease while someone holds it; nil when nobody does (never taken, expired or released).
    public func current() throws -> Lease? {
        try lease("SELECT \(Self.columns) FROM leadership WHERE id = 1 AND expires_at > clock_timestamp()", [])
    }

    private static let columns = "token, holder, endpoint, EXTRACT(EPOCH FROM since)::float8, EXTRACT(EPOCH FROM expires_at)::float8"

    private func lease(_ sql: String, _ values: [JournalValue]) throws -> Lease? {
        guard let row = try database.unfencedQuery(sql, values).first else { return nil }
        return Lease(
            token: row[0].int, holder: row[1].text, endpoint: row[2].text, since: Date(timeIntervalSince1970: row[3].double),
            expiresAt: Date(timeIntervalSince1970: row[4].double))
    }
}
