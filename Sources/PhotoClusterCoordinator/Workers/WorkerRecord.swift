import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What the coordinator knows of one connected worker.
struct WorkerRecord {
    /// The worker's ZeroMQ routing identity, which is also its id.
    let id: String
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
    /// Photos it holds: (job, photo index).
    var inFlight: Set<PhotoRef> = []
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
    /// whether any queued photo is worth sending back here.
    var cached: Set<PhotoRef> = []
    var completed: UInt64 = 0
    /// Its operations per stage, from its latest heartbeat.
    var stages: [Photocluster_V1_StageLoad] = []
    /// The newest control epoch it acknowledged, per job.
    var ackedEpoch: [String: UInt64] = [:]

    func canRun(_ filterNames: Set<String>) -> Bool { filterNames.allSatisfy { filters[$0] != nil } }
}

struct PhotoRef: Hashable {
    let job: String
    let index: UInt32
}
