import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// A job's photos and where each stands. A value type with no I/O: the coordinator node owns
/// one per job on its loop thread and turns the changes into messages and files.
struct Job {
    let id: String
    let label: String
    let outputDirectory: URL
    /// The CURVE key of the client that submitted it: only that key and admin keys may see and
    /// act on it. Nil without CURVE (every client may), and for a job an older journal kept
    /// (only admins may, when the coordinator uses CURVE).
    let owner: String?
    let format: Photocluster_V1_OutputFormat
    let quality: UInt32
    /// JPEG decodes and encodes use the fast DCT (see `SubmitJob.fast_dct`).
    let fastDCT: Bool
    /// Orientation, colour and metadata of every photo (see `SubmitJob.image`).
    let image: Photocluster_V1_ImageOptions
    let createdAt: Date
    /// Viewport mode runs only visible ∪ prefetch; batch mode runs everything.
    let viewportMode: Bool
    /// Change a photo's state only through `setState`, which keeps `tally` true.
    var photos: [PhotoRecord]
    /// Photos per state, and how many cancelled ones are only parked (out of view): kept as
    /// photos change so progress costs nothing on a 100,000-photo job.
    private(set) var tally = (states: [PhotoState: Int](), parked: 0)
    /// For each photo that leads, the photos that copy its result.
    private(set) var followersByLeader: [UInt32: [UInt32]] = [:]
    /// The distinct filter sets of the job, for capability checks.
    private(set) var filterSets: Set<Set<String>> = []
    private(set) var phase: Photocluster_V1_JobPhase = .preparation
    private(set) var finishedAt: Date?
    var requeues: UInt32 = 0
    var retries: UInt32 = 0
    /// The client's view, bumped `epoch` on every change. The queue follows it in O(1).
    var viewport: Viewport {
        didSet { queue.follow(planner) }
    }
    var epoch: UInt64 = 1
    /// The client cancelled the whole job: it ends in the cancelled phase.
    var cancelledWhole = false
    /// Suspended by `cluster suspend` (scrolling suspends too; see `isSuspended`).
    var suspendedByClient = false
    /// Photos ready for a worker, taken in viewport order (see `ViewportQueue`): a viewport
    /// change re-orders nothing. Kept by `refreshQueue`, through `setState` and `setWorker`.
    var queue: ViewportQueue
    /// Photos in flight (those with a worker) and the band their worker was last told: what a
    /// viewport change looks at, never every photo.
    var inFlight: [UInt32: PriorityBand] = [:]
    /// Photos held by workers that died, each with its losses (see `Job+WorkerLosses`): only
    /// photos that were lost, so the record of every other photo stays as small as it was.
    var workerLosses: [UInt32: WorkerLosses] = [:]
    /// Photos waiting out a retry back-off (due on the monotonic clock), and the same as a set.
    var delayed: [(due: MonotonicInstant, index: UInt32)] = []
    var delayedIndices: Set<UInt32> = []
    /// Recent control round trips (viewport change → last worker's acknowledgement), in ms.
    var controlAckMilliseconds: [Double] = []
    /// Work the workers reported, and the part done for photos out of view at the time.
    var work = (bytes: UInt64(0), wastedBytes: UInt64(0), pixels: UInt64(0), wastedPixels: UInt64(0))

    init(id: String, submit: Photocluster_V1_SubmitJob, outputDirectory: URL, owner: String? = nil, now: Date = Date()) {
        self.id = id
        self.label = submit.label
        self.outputDirectory = outputDirectory
        self.owner = owner
        self.format = submit.format
        self.quality = submit.quality == 0 ? 90 : submit.quality
        self.fastDCT = submit.fastDct
        self.image = submit.image
        self.createdAt = now
        self.viewportMode = submit.viewportMode
        let count = submit.photos.count
        viewport = submit.hasViewport
            ? Viewport(from: submit.viewport, count: count)
            : Viewport.everything(count: count)
        queue = ViewportQueue(planner: ViewportPlanner(count: count, viewport: viewport, runsEverything: !submit.viewportMode))
        let stems = OutputNaming.stems(for: submit.photos.map(\.name))
        var leaders: [String: UInt32] = [:]
        var followers: [UInt32: [UInt32]] = [:]
        photos = submit.photos.enumerated().map { index, entry in
            let filters = entry.filters.isEmpty ? submit.filters : entry.filters
            var photo = PhotoRecord(index: UInt32(index), name: entry.name, url: entry.url, filters: filters, stem: stems[index])
            // Same URL, same filters, same output: compute it once.
            let identity = entry.url + "\u{0}" + filters.map { (try? $0.serializedData())?.base64EncodedString() ?? "" }.joined(separator: "|")
            if let leader = leaders[identity] {
                photo.leader = leader
                followers[leader, default: []].append(UInt32(index))
            } else {
                leaders[identity] = UInt32(index)
            }
            return photo
        }
        followersByLeader = followers
        tally.states[.new] = photos.count
        filterSets = Set(photos.map(\.filterNames))
        rebuildQueue()
    }

    var total: Int { photos.count }
    var isFinished: Bool { phase == .didFinish || phase == .cancelled }
    var hasPending: Bool { queue.first != nil || !readySuspects.isEmpty }
    /// Photos the viewport wants that wait for a worker (suspects too), and those waiting for a retry.
    var queuedCount: Int { queue.wantedCount + readySuspects.count + delayed.count }
    var hasDelayedRetries: Bool { !delayed.isEmpty }
    var isSuspended: Bool { suspendedByClient || viewport.scrolling }
    var controlState: JobControlState { JobControlState(jobID: id, epoch: epoch, suspended: isSuspended) }
    var planner: ViewportPlanner { ViewportPlanner(count: photos.count, viewport: viewport, runsEverything: !viewportMode) }

    var progress: Photocluster_V1_JobProgress {
        var progress = Photocluster_V1_JobProgress()
        progress.total = UInt32(photos.count)
        progress.succeeded = UInt32(tally.states[.done] ?? 0)
        progress.failed = UInt32(tally.states[.failed] ?? 0)
        progress.cancelled = UInt32(tally.states[.cancelled] ?? 0)
        progress.done = progress.succeeded + progress.failed + progress.cancelled
        return progress
    }

    /// Every photo settled: the job can finish.
    var allSettled: Bool {
        (tally.states[.done] ?? 0) + (tally.states[.failed] ?? 0) + (tally.states[.cancelled] ?? 0) - tally.parked == photos.count
    }

    /// The one way a photo's state changes, so the tally and the queue stay true.
    mutating func setState(_ index: UInt32, _ state: PhotoState, parked: Bool = false) {
        let old = (state: photos[Int(index)].state, parked: photos[Int(index)].parked)
        tally.states[old.state, default: 0] -= 1
        if old.parked { tally.parked -= 1 }
        photos[Int(index)].state = state
        photos[Int(index)].parked = parked
        tally.states[state, default: 0] += 1
        if parked { tally.parked += 1 }
        refreshQueue(index)
    }

    /// The one way a photo's worker changes, so the in-flight index and the queue stay true;
    /// `band` is the priority the worker is told (the viewport's, unless given).
    mutating func setWorker(_ index: UInt32, _ worker: String?, band: PriorityBand? = nil) {
        photos[Int(index)].worker = worker
        if worker == nil {
            inFlight.removeValue(forKey: index)
        } else {
            inFlight[index] = band ?? planner.band(of: Int(index))
        }
        refreshQueue(index)
    }

    func photo(_ index: UInt32) -> PhotoRecord? {
        Int(index) < photos.count ? photos[Int(index)] : nil
    }

    /// The photos that get a copy of `leader`'s outcome: those not settled yet (a follower may
    /// have been cancelled by name, or run on its own).
    func followers(of leader: UInt32) -> [UInt32] {
        (followersByLeader[leader] ?? []).filter { !photos[Int($0)].isSettled }
    }

    // MARK: - Phases

    mutating func enter(_ phase: Photocluster_V1_JobPhase, at now: Date = Date()) {
        self.phase = phase
        if phase == .didFinish || phase == .cancelled { finishedAt = now }
    }

    var elapsed: TimeInterval { (finishedAt ?? Date()).timeIntervalSince(createdAt) }

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
        summary.viewport = viewport.proto(epoch: epoch)
        summary.viewportMode = viewportMode
        summary.suspended = isSuspended
        summary.outputDir = outputDirectory.path
        summary.controlAckMs = controlAckMilliseconds
        summary.bytesDownloaded = work.bytes
        summary.bytesWasted = work.wastedBytes
        summary.pixelsProcessed = work.pixels
        summary.pixelsWasted = work.wastedPixels
        if includePhotos { summary.photos = photos.map { $0.status() } }
        return summary
    }
}

extension Viewport {
    init(from proto: Photocluster_V1_Viewport, count: Int) {
        let last = max(0, count - 1)
        let start = min(Int(proto.visibleStart), last)
        let end = max(start, min(Int(proto.visibleEnd), last))
        self.init(visible: start...end, prefetch: Int(proto.prefetch), scrolling: proto.scrolling)
    }

    func proto(epoch: UInt64) -> Photocluster_V1_Viewport {
        var viewport = Photocluster_V1_Viewport()
        viewport.visibleStart = UInt32(visible.lowerBound)
        viewport.visibleEnd = UInt32(visible.upperBound)
        viewport.prefetch = UInt32(prefetch)
        viewport.scrolling = scrolling
        viewport.epoch = epoch
        return viewport
    }
}

/// What every worker must hear of a job's control, at its epoch (see `sendControlState`).
struct JobControlState {
    let jobID: String
    let epoch: UInt64
    let suspended: Bool
}
