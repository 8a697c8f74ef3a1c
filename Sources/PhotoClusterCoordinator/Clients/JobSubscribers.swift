import Foundation
import PhotoClusterProto

/// The clients that hear about one job, and how much each asked for (see `EventDetail` and
/// `SummaryDetail`).
/// Loop-owned: one per job in `CoordinatorNode.subscribers`.
///
/// Counts-only clients get the job's counts at most once per `countsInterval`; counts that
/// arrive sooner wait for `takeWaitingCounts` (the coordinator's timer), and the counts that
/// settle the job's last photo never wait.
struct JobSubscribers {
    static let countsInterval: TimeInterval = 0.1

    private(set) var everyPhoto: Set<Data> = []
    private(set) var countsOnly: Set<Data> = []
    /// Clients whose summary lists only the photos that did not succeed.
    private(set) var unsuccessfulOnly: Set<Data> = []
    /// Clients that were sent the finished job's summary: a watch they renew (while the summary
    /// is on its way) does not bring it again.
    private(set) var toldTheEnd: Set<Data> = []
    /// When counts-only clients last got the counts (system uptime, seconds).
    private var countsSentAt = -Double.infinity
    /// Newer counts than the last sent are waiting for the timer.
    private(set) var countsWaiting = false

    init() {}

    init(_ client: Data, detail: Photocluster_V1_EventDetail, summary: Photocluster_V1_SummaryDetail = .everyPhoto) {
        add(client, detail: detail, summary: summary)
    }

    /// Subscribes a client, or changes what it hears.
    mutating func add(_ client: Data, detail: Photocluster_V1_EventDetail, summary: Photocluster_V1_SummaryDetail = .everyPhoto) {
        if summary == .unsuccessful {
            unsuccessfulOnly.insert(client)
        } else {
            unsuccessfulOnly.remove(client)
        }
        if detail == .counts {
            everyPhoto.remove(client)
            countsOnly.insert(client)
        } else {
            countsOnly.remove(client)
            everyPhoto.insert(client)
        }
    }

    mutating func remove(_ client: Data) {
        everyPhoto.remove(client)
        countsOnly.remove(client)
        unsuccessfulOnly.remove(client)
    }

    /// What `client`'s summary lists (a client not subscribed gets every photo).
    func summaryDetail(of client: Data) -> Photocluster_V1_SummaryDetail {
        unsuccessfulOnly.contains(client) ? .unsuccessful : .everyPhoto
    }

    var all: Set<Data> { everyPhoto.union(countsOnly) }

    mutating func noteTheEnd(sentTo clients: Set<Data>) {
        toldTheEnd.formUnion(clients)
    }

    /// Who gets new counts now: every-photo clients always; counts-only clients when the last
    /// send is `countsInterval` old or `final` (the job's photos are all settled).
    mutating func countsRecipients(now: TimeInterval, final: Bool) -> Set<Data> {
        guard !countsOnly.isEmpty else { return everyPhoto }
        guard final || now - countsSentAt >= Self.countsInterval else {
            countsWaiting = true
            return everyPhoto
        }
        countsSentAt = now
        countsWaiting = false
        return everyPhoto.union(countsOnly)
    }

    /// The counts-only clients whose counts have waited, now due (empty if none waited).
    mutating func takeWaitingCounts(now: TimeInterval) -> Set<Data> {
        guard countsWaiting, now - countsSentAt >= Self.countsInterval else { return [] }
        countsSentAt = now
        countsWaiting = false
        return countsOnly
    }
}
