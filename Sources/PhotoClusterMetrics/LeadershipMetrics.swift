import CoreMetrics
import Foundation

/// A coordinator's part in leading a shared journal, exported whether it leads or stands by (a
/// standby serves /metrics too, so an alert can tell "no leader" from "no standby"). Changed by
/// the command that runs the coordinator, from any thread: the handles are thread-safe.
public final class LeadershipMetrics: @unchecked Sendable {
    public let exporter = MetricsExporter(catalog: MetricCatalog.leadership)
    private let leader: Gauge
    private let token: Gauge
    private let since: Gauge
    private let takeovers: Counter

    public init() {
        leader = Gauge(label: MetricCatalog.coordinatorLeader.name, factory: exporter)
        token = Gauge(label: MetricCatalog.leaseToken.name, factory: exporter)
        since = Gauge(label: MetricCatalog.leaderSince.name, factory: exporter)
        takeovers = Counter(label: MetricCatalog.takeovers.name, factory: exporter)
        standingBy()
    }

    /// This coordinator took the lead with `token` at `since` (the database's clock).
    public func leading(token value: Int64, since date: Date) {
        takeovers.increment()
        leader.record(1)
        token.record(Double(value))
        since.record(date.timeIntervalSince1970)
    }

    public func standingBy() {
        leader.record(0)
        token.record(0)
        since.record(0)
    }
}
