import CoreMetrics
import Prometheus

/// One node's metrics: a swift-metrics factory whose handlers live in this node's own Prometheus
/// registry, so several nodes in one process (the embedded cluster, tests) never share counters.
///
/// Every metric name must be in the catalog: it supplies the `# HELP` text (and histogram
/// buckets) that the plain `PrometheusMetricsFactory` would leave out.
public final class MetricsExporter: MetricsFactory {
    public let registry = PrometheusCollectorRegistry()
    private let catalog: [String: MetricDefinition]

    public init(catalog: [MetricDefinition]) {
        self.catalog = Dictionary(catalog.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The Prometheus text exposition of every metric (content type `text/plain; version=0.0.4`).
    public func exposition() -> String { registry.emitToString() }

    private func definition(_ name: String) -> MetricDefinition {
        guard let definition = catalog[name] else {
            preconditionFailure("metric \(name) is not in the catalog: add it with its help text")
        }
        return definition
    }

    /// The catalog's name, whole (units and `_total` are already part of it), with its help text.
    private func descriptor(_ name: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: definition(name).help)
    }

    // MARK: - MetricsFactory

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
        return registry.makeValueHistogram(descriptor: descriptor(label), labels: dimensions, buckets: definition(label).buckets)
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        let buckets = definition(label).buckets.map { Duration.nanoseconds(Int64($0 * 1e9)) }
        return registry.makeDurationHistogram(descriptor: descriptor(label), labels: dimensions, buckets: buckets)
    }

    public func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    public func destroyRecorder(_ handler: any RecorderHandler) {
        switch handler {
        case let gauge as Prometheus.Gauge: registry.unregisterGauge(gauge)
        case let histogram as ValueHistogram: registry.unregisterValueHistogram(histogram)
        default: break
        }
    }

    public func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    public func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}

/// A metric's name (Prometheus conventions: base units, `_total` for counters), its help text,
/// and for histograms the bucket bounds in base units.
public struct MetricDefinition: Sendable {
    public let name: String
    public let help: String
    public let buckets: [Double]

    public init(_ name: String, _ help: String, buckets: [Double] = []) {
        self.name = name
        self.help = help
        self.buckets = buckets
    }
}
