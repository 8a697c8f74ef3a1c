import CoreMetrics
import Foundation

/// A worker's metrics. Every handle is made in `init` and never replaced, and the handles are
/// thread-safe, so stage operations on any thread may record into them.
public final class WorkerMetrics: Sendable {
    public let exporter = MetricsExporter(catalog: MetricCatalog.worker)
    private let work: WorkMetrics
    private let queued: [String: Gauge]
    private let running: [String: Gauge]
    private let inFlight: Gauge
    private let heartbeatMisses: Counter
    private let coordinatorSwitches: Counter
    private let stageTimeouts: [String: Counter]
    private let memoryGauges: [Gauge]
    private let memoryWaits: Counter
    private let memoryRefusals: Counter
    private let footprintGauges: [Gauge]
    /// The budget's totals last recorded, so the counters move by the difference.
    private let memoryTotals = MemoryTotals()

    private final class MemoryTotals: @unchecked Sendable {
        let lock = NSLock()
        var waits = 0
        var refusals = 0
    }

    public init() {
        let factory = exporter
        work = WorkMetrics(factory: factory)
        queued = .init(labels: MetricLabels.stages) { Gauge(label: MetricCatalog.queueDepth.name, dimensions: [("stage", $0)], factory: factory) }
        running = .init(labels: MetricLabels.stages) {
            Gauge(label: MetricCatalog.operationsRunning.name, dimensions: [("stage", $0)], factory: factory)
        }
        inFlight = Gauge(label: MetricCatalog.photosInFlight.name, factory: factory)
        heartbeatMisses = Counter(label: MetricCatalog.heartbeatMisses.name, factory: factory)
        coordinatorSwitches = Counter(label: MetricCatalog.coordinatorSwitches.name, factory: factory)
        stageTimeouts = .init(labels: MetricLabels.stages) {
            Counter(label: MetricCatalog.stageTimeouts.name, dimensions: [("stage", $0)], factory: factory)
        }
        memoryGauges = [MetricCatalog.memoryLimit, MetricCatalog.memoryBudget, MetricCatalog.memoryInUse, MetricCatalog.memoryInUsePeak, MetricCatalog.photosWaitingForMemory].map {
            Gauge(label: $0.name, factory: factory)
        }
        memoryWaits = Counter(label: MetricCatalog.memoryWaits.name, factory: factory)
        memoryRefusals = Counter(label: MetricCatalog.memoryRefusals.name, factory: factory)
        footprintGauges = [MetricCatalog.stageCacheBytes, MetricCatalog.stageCacheCapacity, MetricCatalog.residentBytes].map {
            Gauge(label: $0.name, factory: factory)
        }
        // Zeroes are series too: a counter that never moved still answers `rate()`.
        for gauge in Array(queued.values) + Array(running.values) + [inFlight] { gauge.record(0) }
    }

    /// The memory budget's figures: the process's limit, the budget, bytes held now and at most,
    /// photos waiting, and the totals of photos that waited and were refused.
    public func memory(limit: Int, budget: Int, inUse: Int, peakInUse: Int, waiting: Int, waitsTotal: Int, refusalsTotal: Int) {
        for (gauge, value) in zip(memoryGauges, [limit, budget, inUse, peakInUse, waiting]) { gauge.record(value) }
        memoryTotals.lock.lock()
        let waits = waitsTotal - memoryTotals.waits, refusals = refusalsTotal - memoryTotals.refusals
        memoryTotals.waits = waitsTotal
        memoryTotals.refusals = refusalsTotal
        memoryTotals.lock.unlock()
        if waits > 0 { memoryWaits.increment(by: waits) }
        if refusals > 0 { memoryRefusals.increment(by: refusals) }
    }

    /// What the process holds: the stage cache's bytes and capacity, and its resident memory
    /// (nil where /proc cannot say; the gauge then keeps its last value).
    public func footprint(cacheBytes: Int, cacheCapacity: Int, residentBytes: Int?) {
        footprintGauges[0].record(cacheBytes)
        footprintGauges[1].record(cacheCapacity)
        if let residentBytes { footprintGauges[2].record(residentBytes) }
    }

    /// A plugin filter took its host down; `plugin` is the plugin's file name.
    public func pluginCrashed(plugin: String, filter: String) {
        Counter(label: MetricCatalog.pluginCrashes.name, dimensions: [("plugin", plugin), ("filter", filter)], factory: exporter).increment()
    }

    /// A stage ran past the time limit.
    public func stageTimedOut(_ stage: String) {
        stageTimeouts[stage]?.increment()
    }

    /// A stage finished: its duration, and the bytes or pixels it handled.
    public func stageFinished(_ stage: String, seconds: Double, bytes: UInt64, pixels: UInt64) {
        work.stageFinished(stage, seconds: seconds, bytes: bytes, pixels: pixels)
    }

    public func photoEnded(outcome: String) { work.photoEnded(outcome: outcome) }

    public func coordinatorSilent() { heartbeatMisses.increment() }

    /// The worker left one coordinator endpoint of its list for the next.
    public func coordinatorSwitched() { coordinatorSwitches.increment() }

    /// A drain ended: photos that finished on this worker, and photos it handed back.
    public func drained(finished: Int, handedBack: Int) {
        for (outcome, count) in [("finished", finished), ("handed_back", handedBack)] {
            Counter(label: MetricCatalog.drainedPhotos.name, dimensions: [("outcome", outcome)], factory: exporter).increment(by: Int64(count))
        }
    }

    /// Operations per stage, queued and running, and the photos held.
    public func load(_ stages: [String: (queued: Int, running: Int)], photosInFlight: Int) {
        for stage in MetricLabels.stages {
            queued[stage]?.record(stages[stage]?.queued ?? 0)
            running[stage]?.record(stages[stage]?.running ?? 0)
        }
        inFlight.record(photosInFlight)
    }
}
