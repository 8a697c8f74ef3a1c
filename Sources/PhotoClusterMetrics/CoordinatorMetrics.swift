import CoreMetrics

/// The coordinator's metrics. Used only on the coordinator's loop thread, which is what makes
/// the per-worker and per-job handle tables safe to change.
public final class CoordinatorMetrics {
    /// Counts of one unfinished job, for its gauges.
    public struct JobCounts: Equatable {
        public var total, succeeded, failed, cancelled, inFlight: Int

        public init(total: Int, succeeded: Int, failed: Int, cancelled: Int, inFlight: Int) {
            (self.total, self.succeeded, self.failed, self.cancelled, self.inFlight) = (total, succeeded, failed, cancelled, inFlight)
        }
    }

    public let exporter = MetricsExporter(catalog: MetricCatalog.coordinator)
    private let work: WorkMetrics
    private let cancellations: [String: Counter]
    private let rejectedResults: [String: Counter]
    private let refusedRequests: [String: Counter]
    public static let rejectionReasons = ["not_sent", "unknown_photo", "wrong_key"]
    public static let refusalReasons = ["not_permitted", "output_root", "output_owner", "output_occupied", "storage_grant", "limit", "key", "protocol_version", "routing_id"]
    /// The status codes the HTTP API documents, each a label of its requests' counter.
    public static let httpCodes = ["200", "201", "204", "400", "401", "403", "404", "409", "413", "415", "429", "500", "503", "other"]
    private let httpRequests: [String: Counter]
    private let httpEventStreams: Gauge
    private let queueDepth: [String: Gauge]
    private let phases: [String: Gauge]
    private let wastedBytes, wastedPixels, requeues, retries, poisonPhotos, heartbeatMisses, droppedFrames, fencedWrites: Counter
    private let workersConnected: Gauge
    private let residentBytes: Gauge
    private var workerInFlight: [String: Gauge] = [:]
    /// Per worker, its stage-duration histograms by stage label (made on its first report).
    private var workerStageDurations: [String: [String: Timer]] = [:]
    private var jobGauges: [String: [String: Gauge]] = [:]
    public static let jobStates = ["total", "succeeded", "failed", "cancelled", "in_flight"]
    public static let phaseNames = ["preparation", "in_progress", "will_finish", "did_finish", "cancelled"]

    public init() {
        let factory = exporter
        func counter(_ definition: MetricDefinition, _ label: String) -> (String) -> Counter {
            { Counter(label: definition.name, dimensions: [(label, $0)], factory: factory) }
        }
        func gauge(_ definition: MetricDefinition, _ label: String) -> (String) -> Gauge {
            { Gauge(label: definition.name, dimensions: [(label, $0)], factory: factory) }
        }
        work = WorkMetrics(factory: factory)
        cancellations = .init(labels: ["viewport", "client"], make: counter(MetricCatalog.cancellations, "reason"))
        rejectedResults = .init(labels: Self.rejectionReasons, make: counter(MetricCatalog.rejectedResults, "reason"))
        refusedRequests = .init(labels: Self.refusalReasons, make: counter(MetricCatalog.refusedRequests, "reason"))
        queueDepth = .init(labels: ["queued"] + MetricLabels.stages, make: gauge(MetricCatalog.queueDepth, "stage"))
        phases = .init(labels: Self.phaseNames, make: gauge(MetricCatalog.jobs, "phase"))
        wastedBytes = Counter(label: MetricCatalog.wastedBytes.name, factory: factory)
        wastedPixels = Counter(label: MetricCatalog.wastedPixels.name, factory: factory)
        requeues = Counter(label: MetricCatalog.requeues.name, factory: factory)
        retries = Counter(label: MetricCatalog.retries.name, factory: factory)
        poisonPhotos = Counter(label: MetricCatalog.poisonPhotos.name, factory: factory)
        heartbeatMisses = Counter(label: MetricCatalog.heartbeatMisses.name, factory: factory)
        droppedFrames = Counter(label: MetricCatalog.droppedFrames.name, factory: factory)
        fencedWrites = Counter(label: MetricCatalog.fencedWrites.name, factory: factory)
        workersConnected = Gauge(label: MetricCatalog.workersConnected.name, factory: factory)
        residentBytes = Gauge(label: MetricCatalog.residentBytes.name, factory: factory)
        httpRequests = .init(labels: Self.httpCodes, make: counter(MetricCatalog.httpRequests, "code"))
        httpEventStreams = Gauge(label: MetricCatalog.httpEventStreams.name, factory: factory)
        for gauge in Array(queueDepth.values) + Array(phases.values) + [workersConnected] { gauge.record(0) }
    }

    // MARK: - Events

    public func photoEnded(outcome: String) { work.photoEnded(outcome: outcome) }

    /// A worker reported a finished stage; `wasted` when the photo was out of view at the time.
    public func stageReported(_ stage: String, seconds: Double, bytes: UInt64, pixels count: UInt64, wasted: Bool) {
        work.stageFinished(stage, seconds: seconds, bytes: bytes, pixels: count)
        if wasted {
            wastedBytes.increment(by: Int64(clamping: bytes))
            wastedPixels.increment(by: Int64(clamping: count))
        }
    }

    /// One stage of one photo on `worker` took `seconds` (the task stream's timings, every stage).
    public func workerStage(_ worker: String, _ stage: String, seconds: Double) {
        stageTimers(of: worker)[stage]?.recordNanoseconds(Int64(seconds * 1e9))
    }

    /// A worker's stage histograms, made when it is first seen: a series of zeroes still answers
    /// `rate()`, so the alerts on them work from the worker's first minute.
    private func stageTimers(of worker: String) -> [String: Timer] {
        if let timers = workerStageDurations[worker] { return timers }
        let timers = [String: Timer](labels: MetricLabels.stages) {
            Timer(label: MetricCatalog.workerStageDuration.name, dimensions: [("worker", worker), ("stage", $0)], factory: exporter)
        }
        workerStageDurations[worker] = timers
        return timers
    }

    public func cancelled(_ count: Int, reason: String) {
        if count > 0 { cancellations[reason]?.increment(by: count) }
    }

    public func requeued(_ count: Int = 1) { if count > 0 { requeues.increment(by: count) } }
    public func retried() { retries.increment() }
    public func poisonPhoto() { poisonPhotos.increment() }
    public func heartbeatMissed() { heartbeatMisses.increment() }
    public func fencedWrite() { fencedWrites.increment() }
    public func droppedFrame() { droppedFrames.increment() }
    /// A worker's report about a photo was dropped; `reason` is one of `rejectionReasons`.
    public func rejectedResult(reason: String) { rejectedResults[reason]?.increment() }
    /// A client's request or connection was refused; `reason` is one of `refusalReasons`.
    public func refusedRequest(reason: String) { refusedRequests[reason]?.increment() }

    public func httpRequest(status: Int) { (httpRequests[String(status)] ?? httpRequests["other"])?.increment() }

    public func httpEventStreams(_ open: Int) { httpEventStreams.record(open) }

    // MARK: - Levels, set once a second

    /// Photos waiting at the coordinator (`queued`) and on workers per stage.
    public func queues(queued: Int, stages: [String: Int]) {
        queueDepth["queued"]?.record(queued)
        for stage in MetricLabels.stages { queueDepth[stage]?.record(stages[stage] ?? 0) }
    }

    /// The process's resident memory (nil: not readable, the gauge keeps its last value).
    public func resident(bytes: Int?) {
        if let bytes { residentBytes.record(bytes) }
    }

    /// Connected workers and the photos each holds; gauges of workers that left are removed.
    public func workers(inFlight: [String: Int]) {
        workersConnected.record(inFlight.count)
        for (id, gauge) in workerInFlight where inFlight[id] == nil {
            gauge.destroy()
            workerInFlight.removeValue(forKey: id)
        }
        for (id, timers) in workerStageDurations where inFlight[id] == nil {
            for timer in timers.values { timer.destroy() }
            workerStageDurations.removeValue(forKey: id)
        }
        for (id, count) in inFlight {
            _ = stageTimers(of: id)
            let gauge = workerInFlight[id] ?? Gauge(label: MetricCatalog.photosInFlight.name, dimensions: [("worker", id)], factory: exporter)
            workerInFlight[id] = gauge
            gauge.record(count)
        }
    }

    /// Unfinished jobs' counts (labelled `job_id`: Prometheus keeps `job` for the scrape job)
    /// and every job's phase; gauges of jobs that finished are removed
    /// (their photos stay counted in `photocluster_photos_total`).
    public func jobs(_ counts: [String: JobCounts], phases phaseCounts: [String: Int]) {
        for name in Self.phaseNames { phases[name]?.record(phaseCounts[name] ?? 0) }
        for (id, gauges) in jobGauges where counts[id] == nil {
            for gauge in gauges.values { gauge.destroy() }
            jobGauges.removeValue(forKey: id)
        }
        for (id, count) in counts {
            let gauges = jobGauges[id] ?? .init(labels: Self.jobStates) {
                Gauge(label: MetricCatalog.jobPhotos.name, dimensions: [("job_id", id), ("state", $0)], factory: exporter)
            }
            jobGauges[id] = gauges
            gauges["total"]?.record(count.total)
            gauges["succeeded"]?.record(count.succeeded)
            gauges["failed"]?.record(count.failed)
            gauges["cancelled"]?.record(count.cancelled)
            gauges["in_flight"]?.record(count.inFlight)
        }
    }
}
