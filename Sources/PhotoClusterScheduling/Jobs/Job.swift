import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// A job's photos and where each stands, with no I/O: the coordinator node owns one per job on
/// its loop thread and turns the changes into messages and files.
///
/// A class, not a value: the loop reads and changes a job tens of times per photo, and a struct
/// read out of the job table is a copy of every field (retaining each array and string it holds),
/// which was a fifth of the loop's time. Another thread gets a `snapshot()`, never the job itself.
package final class Job {
    package let id: String
    package let label: String
    package let outputDirectory: URL
    /// `outputDirectory.path`, made once: a URL's path is parsed anew at every use.
    package let outputDirectoryPath: String
    /// What every output's path starts with: the directory and a `/`, or the place's prefix
    /// (see `Job+OutputPaths`).
    package let outputPathPrefix: String
    /// Where the workers store the outputs themselves (S3, a shared directory), or nil: the
    /// coordinator writes them into `outputDirectory`, which a job with a place does not use.
    package let place: OutputPlace?
    /// The CURVE key of the client that submitted it: only that key and admin keys may see and
    /// act on it. Nil without CURVE (every client may), and for a job an older journal kept
    /// (only admins may, when the coordinator uses CURVE).
    package let owner: String?
    package let format: Photocluster_V1_OutputFormat
    package let quality: UInt32
    /// JPEG decodes and encodes use the fast DCT (see `SubmitJob.fast_dct`).
    package let fastDCT: Bool
    /// Orientation, colour and metadata of every photo (see `SubmitJob.image`).
    package let image: Photocluster_V1_ImageOptions
    package let createdAt: Date
    /// Viewport mode runs only visible ∪ prefetch; batch mode runs everything.
    package let viewportMode: Bool
    /// Change a photo's state only through `setState`, which keeps `tally` true.
    package internal(set) var photos: [PhotoRecord]
    /// Each photo's place in the order the job's photos settled, from 1 (0: not settled), what
    /// an HTTP event stream resumes from. A photo that settles again (restored without its file,
    /// run again) gets a new, later place. Beside the records rather than in them: there its 4
    /// bytes would cost 8 a photo with the padding.
    package private(set) var settledSequences: [UInt32] = []
    /// The place of the photo that settled last.
    package internal(set) var lastSettledSequence: UInt32 = 0
    /// Photos per state, and how many cancelled ones are only parked (out of view): kept as
    /// photos change so progress costs nothing on a 100,000-photo job.
    package private(set) var tally = (states: [PhotoState: Int](), parked: 0)
    /// For each photo that leads, the photos that copy its result.
    package private(set) var followersByLeader: [UInt32: [UInt32]] = [:]
    /// The distinct filter sets of the job, for capability checks.
    /// Every photo's name, URL and output stem (see `name(of:)`).
    package let strings: ManifestStrings
    /// The distinct filter chains of the job (a photo holds an index); chain 0 is the job's own.
    package let chains: [[Photocluster_V1_FilterSpec]]
    /// The filter names of each chain, for capability checks.
    package let chainNames: [Set<String>]
    /// The oldest worker protocol its photos may be sent to (`PhotoRecord.neededProtocol`), least
    /// and most of them: a worker older than `lowest` is asked for none of them, and with one of
    /// `highest` or newer connected none waits for its protocol.
    package let neededProtocols: (lowest: UInt8, highest: UInt8)
    /// The encoded fields every graph of a chain shares (see `encodeGraph`), made when first needed.
    package internal(set) var graphTemplates: [UInt32: [UInt8]] = [:]
    package private(set) var phase: Photocluster_V1_JobPhase = .preparation
    package private(set) var finishedAt: Date?
    package internal(set) var requeues: UInt32 = 0
    package internal(set) var retries: UInt32 = 0
    /// The client's view, bumped `epoch` on every change. The queue follows it in O(1).
    package var viewport: Viewport {
        didSet { queue.follow(planner) }
    }
    package internal(set) var epoch: UInt64 = 1
    /// The client cancelled the whole job: it ends in the cancelled phase.
    package internal(set) var cancelledWhole = false
    /// Suspended by `cluster suspend` (scrolling suspends too; see `isSuspended`).
    package internal(set) var suspendedByClient = false
    /// Photos ready for a worker, taken in viewport order (see `ViewportQueue`): a viewport
    /// change re-orders nothing. Kept by `refreshQueue`, through `setState` and `setWorker`.
    package internal(set) var queue: ViewportQueue
    /// Photos in flight (those with a worker) and the band their worker was last told: what a
    /// viewport change looks at, never every photo.
    package internal(set) var inFlight: [UInt32: PriorityBand] = [:]
    /// Photos held by workers that died, each with its losses (see `Job+WorkerLosses`): only
    /// photos that were lost, so the record of every other photo stays as small as it was.
    package internal(set) var workerLosses: [UInt32: WorkerLosses] = [:]
    /// Photos admitted into a worker's memory budget and not yet ended there, with what they
    /// were granted (`PhotoAdmitted`): a loss takes the figure into the photo's `WorkerLosses`.
    package internal(set) var memoryGrants: [UInt32: UInt64] = [:]
    /// Photos waiting out a retry back-off (due on the monotonic clock), and the same as a set.
    package internal(set) var delayed: [(due: MonotonicInstant, index: UInt32)] = []
    package internal(set) var delayedIndices: Set<UInt32> = []
    /// Recent control round trips (viewport change → last worker's acknowledgement), in ms.
    package internal(set) var controlAckMilliseconds: [Double] = []
    /// Work the workers reported, and the part done for photos out of view at the time.
    package internal(set) var work = (bytes: UInt64(0), wastedBytes: UInt64(0), pixels: UInt64(0), wastedPixels: UInt64(0))

    package init(id: String, submit: Photocluster_V1_SubmitJob, outputDirectory: URL, place: OutputPlace? = nil, owner: String? = nil, now: Date) {
        self.id = id
        self.label = submit.label
        self.outputDirectory = outputDirectory
        let directoryPath = outputDirectory.path
        self.outputDirectoryPath = directoryPath
        self.place = place
        self.outputPathPrefix = place?.locationPrefix ?? (directoryPath.hasSuffix("/") ? directoryPath : directoryPath + "/")
        self.owner = owner
        self.format = submit.format
        self.quality = submit.quality == 0 ? 90 : submit.quality
        self.fastDCT = submit.fastDct
        self.image = submit.image
        self.createdAt = now
        self.viewportMode = submit.viewportMode
        let count = submit.photos.count
        let viewport = submit.hasViewport
            ? Viewport(from: submit.viewport, count: count)
            : Viewport.everything(count: count)
        self.viewport = viewport
        queue = ViewportQueue(planner: ViewportPlanner(count: count, viewport: viewport, runsEverything: !submit.viewportMode))
        // Built photo by photo from the submit, which the caller then lets go: nothing per
        // photo is kept but the record and its strings' bytes.
        var strings = ManifestStrings(
            reservingStrings: 3 * count, bytes: submit.photos.reduce(0) { $0 + $1.name.utf8.count + $1.url.utf8.count })
        var stems = OutputNaming.Stems()
        var chainNumbers: [[Photocluster_V1_FilterSpec]: UInt32] = [submit.filters: 0]
        var chains = [submit.filters]
        var leaders: [LeaderKey: UInt32] = [:]
        var followers: [UInt32: [UInt32]] = [:]
        var photos: [PhotoRecord] = []
        photos.reserveCapacity(count)
        let outputsNeed = ProtocolNeeds.forOutputs(format: submit.format, image: submit.image)
        var needed = (lowest: UInt8.max, highest: UInt8(0))
        for (index, entry) in submit.photos.enumerated() {
            var chain: UInt32 = 0
            if !entry.filters.isEmpty {
                chain = chainNumbers[entry.filters] ?? UInt32(chains.count)
                if chain == chains.count {
                    chainNumbers[entry.filters] = chain
                    chains.append(entry.filters)
                }
            }
            strings.append(entry.name)
            strings.append(entry.url)
            let stem = stems.next(for: entry.name)
            // Most names are their own stem: an empty string says so.
            strings.append(stem == entry.name ? "" : stem)
            let need = UInt8(clamping: max(outputsNeed ?? 0, ProtocolNeeds.forInput(url: entry.url) ?? 0))
            needed = (min(needed.lowest, need), max(needed.highest, need))
            var photo = PhotoRecord(index: UInt32(index), chain: chain, neededProtocol: need)
            // Same URL, same filters, same output: compute it once.
            let key = LeaderKey(url: entry.url, chain: chain)
            if let leader = leaders[key] {
                photo.leader = leader
                followers[leader, default: []].append(UInt32(index))
            } else {
                leaders[key] = UInt32(index)
            }
            photos.append(photo)
        }
        self.photos = photos
        self.strings = strings
        self.chains = chains
        chainNames = chains.map { Set($0.map(\.name)) }
        neededProtocols = photos.isEmpty ? (0, 0) : needed
        followersByLeader = followers
        tally.states[.new] = photos.count
        rebuildQueue()
    }

    /// The job as it is now, for another thread (a writer's, making `index.json`): a copy of its
    /// own, which the loop's later changes do not touch. Its arrays are shared until either side
    /// changes them (copy on write), so a snapshot costs no copy of the photos.
    package func snapshot() -> Job {
        Job(copying: self)
    }

    /// Every stored property, as it is (`JobSnapshotTests` checks that none is left out).
    private init(copying other: Job) {
        id = other.id
        label = other.label
        outputDirectory = other.outputDirectory
        outputDirectoryPath = other.outputDirectoryPath
        outputPathPrefix = other.outputPathPrefix
        place = other.place
        owner = other.owner
        format = other.format
        quality = other.quality
        fastDCT = other.fastDCT
        image = other.image
        createdAt = other.createdAt
        viewportMode = other.viewportMode
        photos = other.photos
        tally = other.tally
        followersByLeader = other.followersByLeader
        strings = other.strings
        chains = other.chains
        chainNames = other.chainNames
        neededProtocols = other.neededProtocols
        graphTemplates = other.graphTemplates
        phase = other.phase
        finishedAt = other.finishedAt
        requeues = other.requeues
        retries = other.retries
        viewport = other.viewport
        epoch = other.epoch
        cancelledWhole = other.cancelledWhole
        suspendedByClient = other.suspendedByClient
        queue = other.queue
        inFlight = other.inFlight
        workerLosses = other.workerLosses
        delayed = other.delayed
        delayedIndices = other.delayedIndices
        controlAckMilliseconds = other.controlAckMilliseconds
        work = other.work
    }

    package var total: Int { photos.count }
    package var isFinished: Bool { phase == .didFinish || phase == .cancelled }
    package var hasPending: Bool { queue.first != nil || !readySuspects.isEmpty }
    /// Photos the viewport wants that wait for a worker (suspects too), and those waiting for a retry.
    package var queuedCount: Int { queue.wantedCount + readySuspects.count + delayed.count }
    package var hasDelayedRetries: Bool { !delayed.isEmpty }
    package var isSuspended: Bool { suspendedByClient || viewport.scrolling }
    /// Open, running and with photos queued: dispatch takes photos from it.
    package var isDispatchable: Bool { !isFinished && !isSuspended && hasPending }
    package var controlState: JobControlState { JobControlState(jobID: id, epoch: epoch, suspended: isSuspended) }
    package var planner: ViewportPlanner { ViewportPlanner(count: photos.count, viewport: viewport, runsEverything: !viewportMode) }

    package var progress: Photocluster_V1_JobProgress {
        var progress = Photocluster_V1_JobProgress()
        progress.total = UInt32(photos.count)
        progress.succeeded = UInt32(tally.states[.done] ?? 0)
        progress.failed = UInt32(tally.states[.failed] ?? 0)
        progress.cancelled = UInt32(tally.states[.cancelled] ?? 0)
        progress.done = progress.succeeded + progress.failed + progress.cancelled
        return progress
    }

    /// Every photo settled: the job can finish.
    package var allSettled: Bool {
        (tally.states[.done] ?? 0) + (tally.states[.failed] ?? 0) + (tally.states[.cancelled] ?? 0) - tally.parked == photos.count
    }

    /// The one way a photo's state changes, so the tally and the queue stay true.
    package func setState(_ index: UInt32, _ state: PhotoState, parked: Bool = false) {
        let old = (state: photos[Int(index)].state, parked: photos[Int(index)].parked)
        tally.states[old.state, default: 0] -= 1
        if old.parked { tally.parked -= 1 }
        photos[Int(index)].state = state
        photos[Int(index)].parked = parked
        tally.states[state, default: 0] += 1
        if parked { tally.parked += 1 }
        refreshQueue(index)
    }

    /// The photo settled: it takes the next place in the order the job's photos settled.
    package func numberSettled(_ index: UInt32) {
        lastSettledSequence += 1
        setSettledSequence(lastSettledSequence, of: index)
    }

    package func settledSequence(of index: UInt32) -> UInt32 {
        Int(index) < settledSequences.count ? settledSequences[Int(index)] : 0
    }

    package func setSettledSequence(_ sequence: UInt32, of index: UInt32) {
        if settledSequences.isEmpty { settledSequences = Array(repeating: 0, count: photos.count) }
        settledSequences[Int(index)] = sequence
        lastSettledSequence = max(lastSettledSequence, sequence)
    }

    /// The one way a photo's worker changes, so the in-flight index and the queue stay true;
    /// `band` is the priority the worker is told (the viewport's, unless given).
    package func setWorker(_ index: UInt32, _ worker: WorkerNumber, band: PriorityBand? = nil) {
        photos[Int(index)].worker = worker
        if worker == .none {
            inFlight.removeValue(forKey: index)
        } else {
            inFlight[index] = band ?? planner.band(of: Int(index))
        }
        refreshQueue(index)
    }

    package func photo(_ index: UInt32) -> PhotoRecord? {
        Int(index) < photos.count ? photos[Int(index)] : nil
    }

    // MARK: - A photo's strings

    package func name(of index: UInt32) -> String { strings[nameNumber(of: index)] }
    package func url(of index: UInt32) -> String { strings[urlNumber(of: index)] }

    /// The safe, unique file name of the photo's output without extension (see `OutputNaming`).
    package func stem(of index: UInt32) -> String { strings[stemNumber(of: index)] }

    /// Where photo `index`'s strings are in `strings`: its name, URL and own stem, one after
    /// the other.
    package func nameNumber(of index: UInt32) -> Int { 3 * Int(index) }
    package func urlNumber(of index: UInt32) -> Int { 3 * Int(index) + 1 }
    /// Its own stem, or its name when it has none.
    package func stemNumber(of index: UInt32) -> Int {
        strings.isEmpty(3 * Int(index) + 2) ? nameNumber(of: index) : 3 * Int(index) + 2
    }

    package func filters(of photo: PhotoRecord) -> [Photocluster_V1_FilterSpec] { chains[Int(photo.chain)] }
    package func filterNames(of photo: PhotoRecord) -> Set<String> { chainNames[Int(photo.chain)] }

    /// The photos that get a copy of `leader`'s outcome: those not settled yet (a follower may
    /// have been cancelled by name, or run on its own).
    package func followers(of leader: UInt32) -> [UInt32] {
        (followersByLeader[leader] ?? []).filter { !photos[Int($0)].isSettled }
    }

    // MARK: - Phases

    package func enter(_ phase: Photocluster_V1_JobPhase, at now: Date) {
        self.phase = phase
        if phase == .didFinish || phase == .cancelled { finishedAt = now }
    }

    package func elapsed(at now: Date) -> TimeInterval { (finishedAt ?? now).timeIntervalSince(createdAt) }
}

/// Photos with the same URL and filters make the same output.
private struct LeaderKey: Hashable {
    let url: String
    let chain: UInt32
}

extension Viewport {
    package init(from proto: Photocluster_V1_Viewport, count: Int) {
        let last = max(0, count - 1)
        let start = min(Int(proto.visibleStart), last)
        let end = max(start, min(Int(proto.visibleEnd), last))
        self.init(visible: start...end, prefetch: Int(proto.prefetch), scrolling: proto.scrolling)
    }

    package func proto(epoch: UInt64) -> Photocluster_V1_Viewport {
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
package struct JobControlState {
    package let jobID: String
    package let epoch: UInt64
    package let suspended: Bool
}
