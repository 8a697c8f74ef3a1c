import CoreMetrics

/// What coordinator and workers count the same way: photos by outcome, stage durations, bytes
/// downloaded and pixels processed. Every handle is made in `init` and never replaced, and the
/// handles are thread-safe.
final class WorkMetrics: Sendable {
    private let photos: [String: Counter]
    private let stageDurations: [String: Timer]
    private let pixels: [String: Counter]
    private let downloadedBytes: Counter

    init(factory: MetricsExporter) {
        photos = .init(labels: MetricLabels.outcomes) { Counter(label: MetricCatalog.photos.name, dimensions: [("outcome", $0)], factory: factory) }
        stageDurations = .init(labels: MetricLabels.stages) {
            Timer(label: MetricCatalog.stageDuration.name, dimensions: [("stage", $0)], factory: factory)
        }
        pixels = .init(labels: ["decode", "filter"]) {
            Counter(label: MetricCatalog.processedPixels.name, dimensions: [("stage", $0)], factory: factory)
        }
        downloadedBytes = Counter(label: MetricCatalog.downloadedBytes.name, factory: factory)
    }

    func photoEnded(outcome: String) { photos[outcome]?.increment() }

    /// A stage finished: its duration, and the bytes or pixels it handled.
    func stageFinished(_ stage: String, seconds: Double, bytes: UInt64, pixels count: UInt64) {
        stageDurations[stage]?.recordNanoseconds(Int64(seconds * 1e9))
        if stage == "download" { downloadedBytes.increment(by: Int64(clamping: bytes)) }
        if count > 0 { pixels[stage]?.increment(by: Int64(clamping: count)) }
    }
}
