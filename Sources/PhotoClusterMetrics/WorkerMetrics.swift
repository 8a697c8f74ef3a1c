import CoreMetrics

/// A worker's metrics. Every handle is made in `init` and never replaced, and the handles are
/// thread-safe, so stage operations on any thread may record into them.
public final class WorkerMetrics: Sendable {
    public let exporter = MetricsExporter(catalog: MetricCatalog.worker)
    private let photos: [String: Counter]
    private let stageDurations: [String: Timer]
    private let pixels: [String: Counter]
    private let queued: [String: Gauge]
    private let running: [String: Gauge]
    private let downloadedBytes: Counter
    private let inFlight: Gauge
    private let heartbeatMisses: Counter

    public init() {
        let factory = exporter
        photos = .init(labels: MetricLabels.outcomes) { Counter(label: MetricCatalog.photos.name, dimensions: [("outcome", $0)], factory: factory) }
        stageDurations = .init(labels: MetricLabels.stages) {
            Timer(label: MetricCatalog.stageDuration.name, dimensions: [("stage", $0)], factory: factory)
        }
        pixels = .init(labels: ["decode", "filter"]) {
            Counter(label: MetricCatalog.processedPixels.name, dimensions: [("stage", $0)], factory: factory)
        }
        queued = .init(labels: MetricLabels.stages) { Gauge(label: MetricCatalog.queueDepth.name, dimensions: [("stage", $0)], factory: factory) }
        running = .init(labels: MetricLabels.stages) {
            Gauge(label: MetricCatalog.operationsRunning.name, dimensions: [("stage", $0)], factory: factory)
        }
        downloadedBytes = Counter(label: MetricCatalog.downloadedBytes.name, factory: factory)
        inFlight = Gauge(label: MetricCatalog.photosInFlight.name, factory: factory)
        heartbeatMisses = Counter(label: MetricCatalog.heartbeatMisses.name, factory: factory)
        // Zeroes are series too: a counter that never moved still answers `rate()`.
        for gauge in Array(queued.values) + Array(running.values) + [inFlight] { gauge.record(0) }
    }

    /// A stage finished: its duration, and the bytes or pixels it handled.
    public func stageFinished(_ stage: String, seconds: Double, bytes: UInt64, pixels count: UInt64) {
        stageDurations[stage]?.recordNanoseconds(Int64(seconds * 1e9))
        if stage == "download" { downloadedBytes.increment(by: Int64(clamping: bytes)) }
        if count > 0 { pixels[stage]?.increment(by: Int64(clamping: count)) }
    }

    public func photoEnded(outcome: String) { photos[outcome]?.increment() }

    public func coordinatorSilent() { heartbeatMisses.increment() }

    /// Operations per stage, queued and running, and the photos held.
    public func load(_ stages: [String: (queued: Int, running: Int)], photosInFlight: Int) {
        for stage in MetricLabels.stages {
            queued[stage]?.record(stages[stage]?.queued ?? 0)
            running[stage]?.record(stages[stage]?.running ?? 0)
        }
        inFlight.record(photosInFlight)
    }
}
