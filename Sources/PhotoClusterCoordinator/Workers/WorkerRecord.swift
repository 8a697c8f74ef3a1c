import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What the coordinator knows of one connected worker. A class for the reason `Job` is one: the
/// loop reads a worker's record several times per photo, and a struct read out of the table is
/// a copy of its sets. Loop-owned; nothing of it leaves the loop thread.
final class WorkerRecord {
    /// The worker's ZeroMQ routing identity, which is also its id.
    let id: String
    /// Its number in the worker table: what photo records hold instead of `id`.
    let number: WorkerNumber
    /// `id` as the frame that routes a message to it, made once.
    let identity: Data
    /// The CURVE key it registered with (nil without CURVE): its messages must come with it.
    let key: String?
    let host: String
    let concurrency: UInt32
    /// New with each start of the worker's process (`WorkerHello.incarnation`; empty from an
    /// older worker): the same id with another one is a restart.
    let incarnation: String
    /// The filters it has, by name, with their parameter schemas.
    let filters: [String: Photocluster_V1_FilterInfo]
    /// Graphs the worker said it can still take.
    var credits: Int = 0
    /// When it was last heard from, on the monotonic clock (liveness must survive a clock step).
    var lastSeen: MonotonicInstant
    /// Photos it holds: (job, photo index). Changed only through `hold`, `release` and
    /// `replaceInFlight`, which keep `cachedInFlight` true.
    private(set) var inFlight: Set<PhotoRef> = []
    /// Assignments sent to it so far, and the sequence each photo in flight went out with (a few
    /// may be left of photos no longer in flight; `reconcile` prunes them).
    var assignSequence: UInt64 = 0
    var assignedAt: [PhotoRef: UInt64] = [:]
    /// Photos its last heartbeat did not hold though they were sent and heard of, and photos it
    /// held that were not given to it: a second heartbeat that says the same settles it.
    var missingAtLastBeat: Set<PhotoRef> = []
    var unexpectedAtLastBeat: Set<PhotoRef> = []
    /// An assignment to it could not be sent (it is gone or not reading): it is sent nothing
    /// more until it is heard from again.
    var unreachable = false
    /// Unsettled photos whose intermediate results it was the last to report holding (each photo's
    /// `cachedOn`): what to forget when it is lost, without walking every photo of every job, and
    /// whether any queued photo is worth sending back here. Changed only through `noteCached`
    /// and `forgetCached`.
    private(set) var cached: Set<PhotoRef> = []
    /// How many photos are in both `inFlight` and `cached`.
    private var cachedInFlight = 0
    var completed: UInt64 = 0
    /// Its operations per stage, from its latest heartbeat.
    var stages: [Photocluster_V1_StageLoad] = []
    /// Its memory budget from its latest heartbeat: limit, budget, bytes held, photos waiting
    /// (all 0 when it reports none).
    var memory = (limit: UInt64(0), budget: UInt64(0), inUse: UInt64(0), waiting: UInt32(0))
    /// The newest control epoch it acknowledged, per job.
    var ackedEpoch: [String: UInt64] = [:]

    init(
        id: String, number: WorkerNumber, key: String?, host: String, concurrency: UInt32, incarnation: String,
        filters: [String: Photocluster_V1_FilterInfo], lastSeen: MonotonicInstant
    ) {
        self.id = id
        self.number = number
        self.identity = Data(id.utf8)
        self.key = key
        self.host = host
        self.concurrency = concurrency
        self.incarnation = incarnation
        self.filters = filters
        self.lastSeen = lastSeen
    }

    func canRun(_ filterNames: Set<String>) -> Bool { filterNames.allSatisfy { filters[$0] != nil } }

    /// Some photo whose intermediate results it holds is not running here: it may be queued, and
    /// worth sending back here. Counted, not searched for: this is asked on every dispatch.
    var holdsCachedPhotosNotInFlight: Bool { cached.count > cachedInFlight }

    /// The photos just assigned to it: each takes a credit and is in flight here.
    func spendCredit(holding refs: [PhotoRef]) {
        credits -= refs.count
        for ref in refs { hold(ref) }
    }

    /// Graphs that could not be sent: their credit comes back and they are not in flight here.
    func refundCredit(releasing refs: [PhotoRef]) {
        credits += refs.count
        for ref in refs { release(ref) }
    }

    /// Graphs that left in one message numbered `sequence` (see `reconcile`).
    func noteAssigned(_ refs: [PhotoRef], sequence: UInt64) {
        assignSequence = sequence
        for ref in refs { assignedAt[ref] = sequence }
    }

    func hold(_ ref: PhotoRef) {
        if inFlight.insert(ref).inserted && cached.contains(ref) { cachedInFlight += 1 }
    }

    func release(_ ref: PhotoRef) {
        if inFlight.remove(ref) != nil && cached.contains(ref) { cachedInFlight -= 1 }
    }

    func replaceInFlight(_ refs: Set<PhotoRef>) {
        inFlight = refs
        cachedInFlight = cached.count < inFlight.count ? cached.filter(inFlight.contains).count : inFlight.filter(cached.contains).count
    }

    func noteCached(_ ref: PhotoRef) {
        if cached.insert(ref).inserted && inFlight.contains(ref) { cachedInFlight += 1 }
    }

    func forgetCached(_ ref: PhotoRef) {
        if cached.remove(ref) != nil && inFlight.contains(ref) { cachedInFlight -= 1 }
    }
}

struct PhotoRef: Hashable {
    let job: String
    let index: UInt32
}
