import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// A job's photos and where each stands. A value type with no I/O: the coordinator node owns
/// one per job on its loop thread and turns the changes into messages and files.
struct Job {
    let id: String
    let label: String
    let outputDirectory: URL
    let format: Photocluster_V1_OutputFormat
    let quality: UInt32
    let createdAt: Date
    private(set) var photos: [PhotoRecord]
    private(set) var phase: Photocluster_V1_JobPhase = .preparation
    private(set) var finishedAt: Date?
    private(set) var requeues: UInt32 = 0
    private(set) var retries: UInt32 = 0
    /// Photos waiting for a worker, in the order they should start.
    private var pending: [UInt32]
    private var pendingHead = 0
    /// Photos waiting out a retry back-off.
    private var delayed: [(due: Date, index: UInt32)] = []

    init(id: String, submit: Photocluster_V1_SubmitJob, outputDirectory: URL, now: Date = Date()) {
        self.id = id
        self.label = submit.label
        self.outputDirectory = outputDirectory
        self.format = submit.format
        self.quality = submit.quality == 0 ? 90 : submit.quality
        self.createdAt = now
        let stems = OutputNaming.stems(for: submit.photos.map(\.name))
        photos = submit.photos.enumerated().map { index, entry in
            PhotoRecord(
                index: UInt32(index), name: entry.name, url: entry.url,
                filters: entry.filters.isEmpty ? submit.filters : entry.filters, stem: stems[index])
        }
        pending = photos.map(\.index)
    }

    var total: Int { photos.count }
    var isFinished: Bool { phase == .didFinish || phase == .cancelled }
    var hasPending: Bool { pendingHead < pending.count }
    var hasDelayedRetries: Bool { !delayed.isEmpty }

    var progress: Photocluster_V1_JobProgress {
        var progress = Photocluster_V1_JobProgress()
        progress.total = UInt32(photos.count)
        for photo in photos {
            switch photo.state {
            case .done: progress.succeeded += 1
            case .failed: progress.failed += 1
            case .cancelled: progress.cancelled += 1
            default: break
            }
        }
        progress.done = progress.succeeded + progress.failed + progress.cancelled
        return progress
    }

    var allTerminal: Bool { photos.allSatisfy { $0.state.isTerminal } }

    func photo(_ index: UInt32) -> PhotoRecord? {
        Int(index) < photos.count ? photos[Int(index)] : nil
    }

    // MARK: - Phases

    mutating func enter(_ phase: Photocluster_V1_JobPhase, at now: Date = Date()) {
        self.phase = phase
        if phase == .didFinish || phase == .cancelled { finishedAt = now }
    }

    var elapsed: TimeInterval { (finishedAt ?? Date()).timeIntervalSince(createdAt) }

    // MARK: - Scheduling

    /// The next pending photo that `canRun` accepts, removed from the queue. Photos it refuses
    /// stay queued in order.
    mutating func takeNext(where canRun: (PhotoRecord) -> Bool) -> PhotoRecord? {
        var index = pendingHead
        while index < pending.count {
            let candidate = photos[Int(pending[index])]
            let stale = candidate.state.isTerminal || candidate.isInFlight
            if stale || canRun(candidate) {
                // The head moves forward in O(1); anything further back is removed in place.
                if index == pendingHead {
                    pendingHead += 1
                    compactPending()
                    index = pendingHead
                } else {
                    pending.remove(at: index)
                }
                if stale { continue }
                return candidate
            }
            index += 1
        }
        return nil
    }

    /// The photos still queued, for capability checks.
    var pendingPhotos: [PhotoRecord] {
        pending[pendingHead...].map { photos[Int($0)] }.filter { !$0.state.isTerminal && !$0.isInFlight }
    }

    mutating func assign(_ index: UInt32, to worker: String) -> Photocluster_V1_PhotoGraph {
        photos[Int(index)].worker = worker
        photos[Int(index)].attempts += 1
        let photo = photos[Int(index)]
        var graph = Photocluster_V1_PhotoGraph()
        graph.jobID = id
        graph.photoIndex = photo.index
        graph.name = photo.name
        graph.url = photo.url
        graph.filters = photo.filters
        graph.format = format
        graph.quality = quality
        graph.band = .visible
        graph.rank = Int64(photo.index)
        graph.attempt = photo.attempts
        return graph
    }

    /// Puts an in-flight photo back in the queue (its worker was lost or handed it back).
    mutating func requeue(_ index: UInt32) {
        guard !photos[Int(index)].state.isTerminal else { return }
        photos[Int(index)].worker = nil
        requeues += 1
        if pendingHead > 0 {
            pendingHead -= 1
            pending[pendingHead] = index
        } else {
            pending.insert(index, at: 0)
        }
    }

    mutating func scheduleRetry(_ index: UInt32, after delay: TimeInterval, now: Date = Date()) {
        photos[Int(index)].worker = nil
        retries += 1
        delayed.append((now.addingTimeInterval(delay), index))
    }

    /// Moves retries whose back-off has passed back into the queue.
    mutating func releaseDueRetries(now: Date = Date()) {
        let due = delayed.filter { $0.due <= now }
        guard !due.isEmpty else { return }
        delayed.removeAll { $0.due <= now }
        pending.append(contentsOf: due.map(\.index))
    }

    private mutating func compactPending() {
        if pendingHead > 1024 && pendingHead * 2 > pending.count {
            pending.removeFirst(pendingHead)
            pendingHead = 0
        }
    }

    // MARK: - Photo outcomes

    mutating func markStage(_ index: UInt32, _ state: PhotoState) {
        guard !photos[Int(index)].state.isTerminal else { return }
        photos[Int(index)].state = state
    }

    mutating func markDone(_ index: UInt32, path: String, width: UInt32, height: UInt32) {
        photos[Int(index)].state = .done
        photos[Int(index)].worker = nil
        photos[Int(index)].outputPath = path
        photos[Int(index)].width = width
        photos[Int(index)].height = height
        photos[Int(index)].failedStage = ""
        photos[Int(index)].reason = ""
    }

    mutating func markFailed(_ index: UInt32, stage: String, reason: String) {
        photos[Int(index)].state = .failed
        photos[Int(index)].worker = nil
        photos[Int(index)].failedStage = stage
        photos[Int(index)].reason = reason
    }

    mutating func markCancelled(_ index: UInt32, reason: String) {
        guard !photos[Int(index)].state.isTerminal else { return }
        photos[Int(index)].state = .cancelled
        photos[Int(index)].worker = nil
        photos[Int(index)].reason = reason
    }

    mutating func noteFailureReason(_ index: UInt32, stage: String, reason: String) {
        photos[Int(index)].failedStage = stage
        photos[Int(index)].reason = reason
    }

    // MARK: - Reports

    func summary(includePhotos: Bool) -> Photocluster_V1_JobSummary {
        var summary = Photocluster_V1_JobSummary()
        summary.jobID = id
        summary.label = label
        summary.phase = phase
        summary.progress = progress
        summary.elapsedSeconds = elapsed
        summary.requeues = requeues
        summary.retries = retries
        if includePhotos { summary.photos = photos.map { $0.status() } }
        return summary
    }
}
