import Foundation
import PhotoClusterCore
import PhotoClusterDownload
import PhotoClusterImaging
import PhotoClusterProto

/// Runs photo graphs on per-stage `OperationQueue`s: download → decode → filters… → encode.
///
/// Owns the queues and the in-flight map (behind a lock); every graph ends with exactly one
/// call of `onOutcome`, whatever happened to it.
public final class WorkerEngine: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Photos decoded, filtered and encoded at once (CPU-bound work).
        public var concurrency: Int
        /// Transfers at once (I/O-bound: waiting costs no CPU).
        public var downloadSlots: Int
        public var maxPixels: Int
        public var downloadLimits: DownloadLimits

        public init(
            concurrency: Int = ProcessInfo.processInfo.activeProcessorCount,
            downloadSlots: Int = 16,
            maxPixels: Int = ImageCodec.defaultMaxPixels,
            downloadLimits: DownloadLimits = DownloadLimits()
        ) {
            self.concurrency = max(1, concurrency)
            self.downloadSlots = max(1, downloadSlots)
            self.maxPixels = maxPixels
            self.downloadLimits = downloadLimits
        }
    }

    typealias OutcomeHandler = @Sendable (PhotoWork, PhotoWork.Outcome) -> Void

    public let configuration: Configuration
    public let filters: FilterRegistry
    let downloadQueue = OperationQueue()
    let processingQueue = OperationQueue()
    private let downloads: DownloadEngine
    private let inFlight = LockedBox<[PhotoWork.Key: (work: PhotoWork, operations: [Operation])]>([:])
    private let reporter: StageReporter
    private let onOutcome: OutcomeHandler

    init(
        configuration: Configuration,
        filters: FilterRegistry,
        onStage: @escaping @Sendable (PhotoWork, Photocluster_V1_Stage, UInt64, UInt64, Double) -> Void,
        onOutcome: @escaping OutcomeHandler
    ) {
        self.configuration = configuration
        self.filters = filters
        self.downloads = DownloadEngine(limits: configuration.downloadLimits)
        self.reporter = StageReporter(onStage: onStage)
        self.onOutcome = onOutcome
        downloadQueue.name = "download"
        downloadQueue.maxConcurrentOperationCount = configuration.downloadSlots
        processingQueue.name = "processing"
        processingQueue.maxConcurrentOperationCount = configuration.concurrency
    }

    public var inFlightCount: Int { inFlight.withLock { $0.count } }

    /// Checks that every filter of a graph exists here and resolves it.
    func resolveFilters(of graph: Photocluster_V1_PhotoGraph) throws -> [ConfiguredFilter] {
        try graph.filters.map { spec in
            try filters.resolve(FilterSpec(name: spec.name, parameters: spec.params.map { ($0.key, $0.value) }))
        }
    }

    /// Builds the graph's operations, linked by dependencies, and queues them. A graph for a
    /// photo already in flight is ignored (the coordinator re-sent it).
    func submit(_ graph: Photocluster_V1_PhotoGraph) {
        let configured: [ConfiguredFilter]
        do {
            configured = try resolveFilters(of: graph)
        } catch {
            let work = PhotoWork(graph: graph, filters: [])
            onOutcome(work, .failed(stage: .filter, stageName: "filter", reason: "\(error)", transient: false))
            return
        }
        let work = PhotoWork(graph: graph, filters: configured)
        let operations = makeOperations(for: work)
        let accepted = inFlight.withLock { map -> Bool in
            guard map[work.key] == nil else { return false }
            map[work.key] = (work, operations)
            return true
        }
        guard accepted else { return }
        // Priority must be set before an operation is added (see the notes on OperationQueue).
        let priority = Self.queuePriority(for: graph.band)
        for operation in operations { operation.queuePriority = priority }
        downloadQueue.addOperation(operations[0])
        processingQueue.addOperations(Array(operations.dropFirst()), waitUntilFinished: false)
    }

    /// Cancels photos of a job (all of them when `photos` is nil). Each ends with a `.cancelled`
    /// outcome unless it had already finished.
    func cancel(job: String, photos: Set<UInt32>?) {
        let targets = inFlight.withLock { map in
            map.values.filter { $0.work.graph.jobID == job && (photos?.contains($0.work.graph.photoIndex) ?? true) }
        }
        for target in targets {
            target.work.markCancelled()
            // The last operation reports the outcome, so it must run: never cancel it.
            for operation in target.operations.dropLast() { operation.cancel() }
        }
    }

    func cancelAll() {
        let jobs = Set(inFlight.withLock { $0.keys.map(\.job) })
        for job in jobs { cancel(job: job, photos: nil) }
    }

    func shutdown() {
        cancelAll()
        downloadQueue.waitUntilAllOperationsAreFinished()
        processingQueue.waitUntilAllOperationsAreFinished()
        downloads.shutdown()
    }

    private func makeOperations(for work: PhotoWork) -> [Operation] {
        var chain: [Operation] = [
            DownloadOperation(work: work, engine: downloads, report: reporter),
            DecodeOperation(work: work, maxPixels: configuration.maxPixels, report: reporter),
        ]
        for (index, filter) in work.filters.enumerated() {
            chain.append(FilterOperation(work: work, filter: filter, isLast: index == work.filters.count - 1, report: reporter))
        }
        chain.append(EncodeOperation(work: work))
        for index in chain.indices.dropFirst() { chain[index].addDependency(chain[index - 1]) }
        // The last operation reports the outcome. It depends on every stage, not only on encode:
        // a cancelled stage finishes at once, even while the stage before it still runs, and
        // Foundation tracks dependents by unretained pointer, so `inFlight` must keep every
        // operation alive until all of them have finished, which is exactly when this runs.
        let completion = BlockOperation { [weak self] in self?.complete(work) }
        for operation in chain { completion.addDependency(operation) }
        chain.append(completion)
        return chain
    }

    /// Runs last, always: turns whatever the stages left into exactly one outcome.
    private func complete(_ work: PhotoWork) {
        inFlight.withLock { _ = $0.removeValue(forKey: work.key) }
        let (outcome, lastFinished) = work.read { ($0.outcome, $0.lastFinished) }
        if case .encoded = outcome {
            // Finished before the cancel reached it: the work is done, so deliver it.
            onOutcome(work, outcome!)
        } else if work.isCancelled {
            onOutcome(work, .cancelled(lastFinished: lastFinished))
        } else if let outcome {
            onOutcome(work, outcome)
        } else {
            onOutcome(work, .failed(stage: .unspecified, stageName: "worker", reason: "the graph ended without a result", transient: true))
        }
    }

    static func queuePriority(for band: Photocluster_V1_PriorityBand) -> Operation.QueuePriority {
        switch band {
        case .visible: return .high
        case .prefetch: return .normal
        default: return .low
        }
    }
}
