import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// A coordinator that leads others on a shared PostgreSQL journal (`configuration.leadership`):
/// it acts only while its lease holds. Its loop asks before every turn and ends without doing
/// anything of that turn once the lease may have lapsed (a coordinator frozen past its lease
/// wakes to messages and timers that are no longer its to handle); writer threads ask before
/// every file; and a journal write the database fences ends the lead at once.
extension CoordinatorNode {
    /// Starts keeping the lease; the loop's turns depend on it from now on. Before `loop.start`.
    func startKeepingLease(_ term: LeadershipTerm) {
        let keeper = LeaseKeeper(term: term, report: { [weak self] in self?.log(.warning, $0) }) { [weak self] reason in
            guard let self else { return }
            // Wakes the loop, whose next turn then ends it.
            loop.post {}
            onLeadershipLost?(reason)
        }
        leaseKeeper = keeper
        keeper.start()
        loop.turnsOnlyWhile { keeper.mayAct() }
        log("leading the coordinators on \(PostgresURI.redacted(term.database)) with lease token \(term.lease.token) (\(term.leaseSeconds) s, renewed every \(String(format: "%.1f", term.leaseSeconds / 3)) s)")
    }

    /// Whether this coordinator may act now: always without a shared journal.
    var leadsNow: Bool { leaseKeeper?.mayAct() ?? true }

    /// A journal write failed: a fenced one means another coordinator leads now.
    func noteJournalFailure(_ error: Error) {
        guard let fenced = error as? JournalFenced else { return }
        metrics.fencedWrite()
        leaseKeeper?.stepDown(because: fenced.description)
    }

    /// The lease, for status replies; nil without a shared journal.
    var leadershipStatus: Photocluster_V1_Leadership? {
        guard let term = leaseKeeper?.term else { return nil }
        var leadership = Photocluster_V1_Leadership()
        leadership.holder = term.holder
        leadership.token = UInt64(term.lease.token)
        leadership.sinceUnixMs = UInt64(max(0, term.lease.since.timeIntervalSince1970 * 1000))
        leadership.leaseSeconds = term.leaseSeconds
        return leadership
    }
}
