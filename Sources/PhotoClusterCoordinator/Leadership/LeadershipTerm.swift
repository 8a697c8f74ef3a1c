import Foundation
import PhotoClusterCore

/// A coordinator's time as the leader of the coordinators that share one PostgreSQL journal:
/// the lease it won (its fencing token) and when it sent the request that won it, which is where
/// its own count of the lease starts (see `LeaderLease`). Won on a database whose tables exist
/// (`CoordinatorStandby` makes them): the leader's connections do not make them again.
public struct LeadershipTerm: Sendable {
    /// The shared journal, as libpq takes it (the password from PGPASSWORD or ~/.pgpass).
    public let database: String
    /// This coordinator, as the lease row and `cluster status` name it.
    public let holder: String
    public let lease: Lease
    /// How long the lease lasts unrenewed (`--lease-seconds`).
    public let leaseSeconds: Double
    /// On this host's monotonic clock: when the winning acquire request left.
    public let requestSent: MonotonicInstant

    public init(database: String, holder: String, lease: Lease, leaseSeconds: Double, requestSent: MonotonicInstant) {
        self.database = database
        self.holder = holder
        self.lease = lease
        self.leaseSeconds = leaseSeconds
        self.requestSent = requestSent
    }

    /// Seconds a leader stops short of its lease's end, for scheduling delays and clock rates:
    /// a tenth of the lease, at most half a second.
    static func margin(leaseSeconds: Double) -> Double { min(0.5, leaseSeconds / 10) }
}
