import Foundation
import PhotoClusterCore
import PhotoClusterScheduling

/// A coordinator waiting for the lead on a shared PostgreSQL journal: on a thread of its own it
/// tries to take the lease about every third of its length (`LeaseCandidate`), which the
/// database grants only once the leader's lease has expired or been released. It binds nothing
/// meanwhile: workers and clients reach only the leader.
public final class CoordinatorStandby: @unchecked Sendable {
    public let database: String
    public let holder: String
    public let endpoint: String
    public let leaseSeconds: Double
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = LockedBox(false)

    /// `holder` names this coordinator in the lease row; `endpoint` says where it takes clients.
    public init(database: String, holder: String, endpoint: String, leaseSeconds: Double) {
        self.database = database
        self.holder = holder
        self.endpoint = endpoint
        self.leaseSeconds = leaseSeconds
    }

    /// Starts trying. `onLeader` hears who leads whenever that changes (nil: nobody, or the
    /// database cannot be reached, with the reason); `onLead` is called once, with the term this
    /// coordinator won, and the thread ends.
    public func start(onLeader: @escaping @Sendable (Lease?, String?) -> Void, onLead: @escaping @Sendable (LeadershipTerm) -> Void) {
        let thread = Thread { [self] in
            if let term = waitForLease(onLeader: onLeader) { onLead(term) }
        }
        thread.name = "standby"
        thread.start()
    }

    /// SQLSTATE of a statement on a table that does not exist.
    private static let undefinedTable = "42P01"

    /// Stops trying (the process is stopping).
    public func stop() {
        stopped.withLock { $0 = true }
        wake.signal()
    }

    private func waitForLease(onLeader: (Lease?, String?) -> Void) -> LeadershipTerm? {
        let origin = MonotonicInstant.now
        var candidate = LeaseCandidate(
            ttl: leaseSeconds, margin: LeadershipTerm.margin(leaseSeconds: leaseSeconds), startingAt: 0)
        var store: LeaseStore?
        // The journal's tables and the lease's are made once, on the first connection; a
        // connection opened again after a failure, the journal's and the lease keeper's of the
        // leader this standby becomes, find them made (unless the database lost them meanwhile:
        // then they are made again).
        var schemaMade = false
        var lastSeen: (holder: String?, problem: String?) = (nil, nil)
        while !stopped.current {
            let now = MonotonicInstant.now
            let seconds = now.seconds(since: origin)
            guard candidate.acquireDue(at: seconds) else {
                _ = wake.wait(timeout: .now() + max(0.01, candidate.nextAttempt - seconds))
                continue
            }
            candidate.acquireSent(at: seconds)
            do {
                if store == nil {
                    let connection = try PostgresDatabase(uri: database)
                    if !schemaMade {
                        try PostgresSchema.create(on: connection)
                        schemaMade = true
                    }
                    store = LeaseStore(database: connection)
                }
                // A plain read first: an acquire locks the lease row (it must wait for the
                // leader's writes in flight), which a standby should not do while a lease holds.
                if let leader = try store?.current() {
                    if leader.holder != lastSeen.holder || lastSeen.problem != nil {
                        onLeader(leader, nil)
                        lastSeen = (leader.holder, nil)
                    }
                    continue
                }
                if let won = try store?.acquire(holder: holder, endpoint: endpoint, ttl: leaseSeconds) {
                    // The acquire may have waited for the row (a frozen leader's transaction holds
                    // it until the server ends that session), and the lease counts locally from
                    // the request: a renew at once gives the new leader a whole lease to count.
                    let renewSent = MonotonicInstant.now
                    guard let lease = try store?.renew(token: won.token, ttl: leaseSeconds) else { continue }
                    return LeadershipTerm(database: database, holder: holder, lease: lease, leaseSeconds: leaseSeconds, requestSent: renewSent)
                }
            } catch {
                store = nil
                if let failure = error as? PostgresDatabase.Failure, failure.sqlState == Self.undefinedTable { schemaMade = false }
                let problem = "\(error)"
                if problem != lastSeen.problem {
                    onLeader(nil, problem)
                    lastSeen = (nil, problem)
                }
            }
        }
        return nil
    }
}
