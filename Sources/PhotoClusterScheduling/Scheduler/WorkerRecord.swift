import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What the coordinator knows of one connected worker. A class for the reason `Job` is one: the
/// loop reads a worker's record several times per photo, and a struct read out of the table is
/// a copy of its sets. Owned by the core (`CoordinatorCore.workers`), on its shell's loop thread.
package final class WorkerRecord {
    /// The worker's name (`--id`); its routing id without CURVE, a prefix of it with CURVE
    /// (`RoutingIdentity`).
    package let id: String
    /// Its number in the worker table: what photo records hold instead of `id`.
    package let number: WorkerNumber
    /// `id` as the frame that routes a message to it without CURVE, made once.
    package let identity: Data
    /// The CURVE key it registered with (nil without CURVE): its messages must come with it.
    package let key: String?
    package let host: String
    /// The stage threads it announced (it may claim more than `WorkerBudgets` believes).
    package let concurrency: UInt32
    /// The most graphs it may hold at once, credit and photos in flight together (`WorkerBudgets`).
    package let creditLimit: Int
    /// It granted more credit than `creditLimit` allows (said once in the log).
    package internal(set) var overclaimed = false
    /// New with each start of the worker's process (`WorkerHello.incarnation`; empty from an
    /// older worker): the same id with another one is a restart.
    package let incarnation: String
    /// The filters it has, by name, with their parameter schemas.
    package let filters: [String: Photocluster_V1_FilterInfo]
    /// The protocol version its hello said (one the coordinator accepts): photos that need a
    /// newer one are not sent to it (`ProtocolNeeds`).
    package let protocolVersion: UInt32
    /// The number of the hello that registered it (`WorkerHello.hello_number`; 0 from an older
    /// worker): a heartbeat naming another hello's was said for another registration.
    package let helloNumber: UInt32
    /// Graphs the worker said it can still take.
    package internal(set) var credits: Int = 0
    /// When it was last heard from, on the monotonic clock (liveness must survive a clock step).
    package internal(set) var lastSeen: MonotonicInstant
    /// Photos it holds: (job, photo index). Changed only through `hold`, `release` and
    /// `replaceInFlight`, which keep `cachedInFlight` true.
    package private(set) var inFlight: Set<PhotoRef> = []
    /// Assignments sent to it so far, and the sequence each photo in flight went out with (a few
    /// may be left of photos no longer in flight; `reconcile` prunes them).
    package internal(set) var assignSequence: UInt64 = 0
    package internal(set) var assignedAt: [PhotoRef: UInt64] = [:]
    /// When each photo in flight was assigned or last made progress here: the clock of its
    /// assignment deadline (`WorkerBudgets.assignmentTimeout`). Pruned as photos leave.
    package private(set) var lastHeardOf: [PhotoRef: MonotonicInstant] = [:]
    /// Photos its last heartbeat did not hold though they were sent and heard of, and photos it
    /// held that were not given to it: a second heartbeat that says the same settles it.
    package internal(set) var missingAtLastBeat: Set<PhotoRef> = []
    package internal(set) var unexpectedAtLastBeat: Set<PhotoRef> = []
    /// An assignment to it could not be sent (it is gone or not reading): it is sent nothing
    /// more until it is heard from again.
    package internal(set) var unreachable = false
    /// Unsettled photos whose intermediate results it was the last to report holding (each photo's
    /// `cachedOn`): what to forget when it is lost, without walking every photo of every job, and
    /// whether any queued photo is worth sending back here. Changed only through `noteCached`
    /// and `forgetCached`.
    package private(set) var cached: Set<PhotoRef> = []
    /// How many photos are in both `inFlight` and `cached`.
    private var cachedInFlight = 0
    package internal(set) var completed: UInt64 = 0
    /// Its operations per stage, from its latest heartbeat.
    package internal(set) var stages: [Photocluster_V1_StageLoad] = []
    /// Its memory budget from its latest heartbeat: limit, budget, bytes held, photos waiting
    /// (all 0 when it reports none), and its process's resident memory (0 when not reported).
    package internal(set) var memory = (limit: UInt64(0), budget: UInt64(0), inUse: UInt64(0), waiting: UInt32(0), resident: UInt64(0))
    /// It said it is draining (`WorkerDraining`): it is given no work, and photos whose stages it
    /// holds are not left for it. Never cleared: a worker that drained stays so until its process
    /// restarts (a new hello makes a new record).
    package internal(set) var draining: Photocluster_V1_WorkerDraining?
    /// Draining and holding nothing any more: an admin's drain has ended (the worker stays idle).
    package var isDrained: Bool { draining != nil && inFlight.isEmpty }
    /// The newest control epoch it acknowledged, per job.
    package internal(set) var ackedEpoch: [String: UInt64] = [:]

    package init(
        id: String, number: WorkerNumber, key: String?, host: String, concurrency: UInt32, creditLimit: Int, incarnation: String,
        filters: [String: Photocluster_V1_FilterInfo], protocolVersion: UInt32, helloNumber: UInt32, lastSeen: MonotonicInstant
    ) {
        self.creditLimit = creditLimit
        self.id = id
        self.number = number
        self.identity = Data(id.utf8)
        self.key = key
        self.host = host
        self.concurrency = concurrency
        self.incarnation = incarnation
        self.filters = filters
        self.protocolVersion = protocolVersion
        self.helloNumber = helloNumber
        self.lastSeen = lastSeen
    }

    package func canRun(_ filterNames: Set<String>) -> Bool { filterNames.allSatisfy { filters[$0] != nil } }

    /// It speaks the protocol a photo needs (`PhotoRecord.neededProtocol`).
    package func speaks(_ neededProtocol: UInt8) -> Bool { protocolVersion >= UInt32(neededProtocol) }

    /// Some photo whose intermediate results it holds is not running here: it may be queued, and
    /// worth sending back here. Counted, not searched for: this is asked on every dispatch.
    package var holdsCachedPhotosNotInFlight: Bool { cached.count > cachedInFlight }

    /// The photos just assigned to it: each takes a credit and is in flight here.
    package func spendCredit(holding refs: [PhotoRef]) {
        credits -= refs.count
        for ref in refs { hold(ref) }
    }

    /// A graph that could not be sent: its credit comes back and it is not in flight here.
    package func refundCredit(releasing ref: PhotoRef) {
        credits += 1
        release(ref)
    }

    /// Graphs that left in one message numbered `sequence` (see `reconcile`).
    package func noteAssigned(_ refs: [PhotoRef], sequence: UInt64, at now: MonotonicInstant) {
        assignSequence = sequence
        for ref in refs {
            assignedAt[ref] = sequence
            lastHeardOf[ref] = now
        }
    }

    /// The worker said something of the photo (a stage ended): its deadline starts again.
    package func heardOf(_ ref: PhotoRef, at now: MonotonicInstant) {
        if inFlight.contains(ref) { lastHeardOf[ref] = now }
    }

    /// Grants `grant` more graphs, as far as `creditLimit` allows; answers whether the worker
    /// claimed more than that.
    package func grantCredit(_ grant: Int) -> Bool {
        let room = max(0, creditLimit - inFlight.count - credits)
        credits += min(grant, room)
        return grant > room
    }

    /// Photos it has held longer than `timeout` without progress, as of `now` (photos of the
    /// jobs `isPaused` names start their clock again instead).
    package func overdue(after timeout: TimeInterval, now: MonotonicInstant, isPaused: (PhotoRef) -> Bool) -> [PhotoRef] {
        var overdue: [PhotoRef] = []
        for ref in inFlight {
            guard let heard = lastHeardOf[ref] else {
                lastHeardOf[ref] = now
                continue
            }
            guard now.seconds(since: heard) > timeout else { continue }
            if isPaused(ref) {
                lastHeardOf[ref] = now
            } else {
                overdue.append(ref)
            }
        }
        return overdue.sorted { ($0.job, $0.index) < ($1.job, $1.index) }
    }

    package func hold(_ ref: PhotoRef) {
        if inFlight.insert(ref).inserted && cached.contains(ref) { cachedInFlight += 1 }
    }

    package func release(_ ref: PhotoRef) {
        if inFlight.remove(ref) != nil && cached.contains(ref) { cachedInFlight -= 1 }
        lastHeardOf.removeValue(forKey: ref)
    }

    /// Photos a hello said the worker still holds, kept in flight on its new registration. They
    /// count as assigned before anything of it (sequence 0): a heartbeat that no longer holds
    /// one, with no outcome of it before, shows it lost like any other (see `reconcile`).
    package func keep(_ refs: Set<PhotoRef>, at now: MonotonicInstant) {
        replaceInFlight(refs)
        for ref in refs {
            assignedAt[ref] = 0
            lastHeardOf[ref] = now
        }
    }

    package func replaceInFlight(_ refs: Set<PhotoRef>) {
        inFlight = refs
        lastHeardOf = lastHeardOf.filter { refs.contains($0.key) }
        cachedInFlight = cached.count < inFlight.count ? cached.filter(inFlight.contains).count : inFlight.filter(cached.contains).count
    }

    package func noteCached(_ ref: PhotoRef) {
        if cached.insert(ref).inserted && inFlight.contains(ref) { cachedInFlight += 1 }
    }

    package func forgetCached(_ ref: PhotoRef) {
        if cached.remove(ref) != nil && inFlight.contains(ref) { cachedInFlight -= 1 }
    }
}

package struct PhotoRef: Hashable {
    package let job: String
    package let index: UInt32

    package init(job: String, index: UInt32) {
        self.job = job
        self.index = index
    }
}
