import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What a worker holds, as its heartbeats say, against what the coordinator thinks it holds.
///
/// A ROUTER drops a message it cannot deliver, and a connection that breaks loses what was on
/// its way: an assignment lost so leaves its photo "in flight" on a live worker for ever, and an
/// outcome lost so does the same. Each assignment carries a sequence number; each worker
/// heartbeat names every photo the worker holds and the newest sequence it has accounted for
/// (messages arrive in order, so every assignment up to it has arrived or never will). A photo
/// sent, accounted for and not held, in two heartbeats in a row (an outcome may be on its way
/// behind the first), was lost: its credit goes back to the worker and the attempt is charged
/// (`chargeAttempt`), so it is tried again until `--max-attempts`. A
/// photo held that was not given to the worker, in two heartbeats in a row, is dropped there.
/// Photos a hello kept count as assigned at 0, before anything of the registration.
extension CoordinatorCore {
    /// The first protocol whose workers' heartbeats always name what they hold. Before it, a
    /// worker's sequence 0 may mean that it does not report at all; from it, 0 is a worker sent
    /// nothing since its hello, whose kept photos are still checked.
    static let heartbeatsNameHeldPhotos: UInt32 = 2

    package func reconcile(_ beat: Photocluster_V1_Heartbeat, from id: String) {
        guard let worker = workers[id], beat.assignSequence > 0 || worker.protocolVersion >= Self.heartbeatsNameHeldPhotos else { return }
        let held = Set(beat.held.prefix(Self.heldClaimLimit(creditLimit: worker.creditLimit)).map { PhotoRef(job: $0.jobID, index: $0.photoIndex) })
        let missing = worker.inFlight.filter { ref in
            !held.contains(ref) && worker.assignedAt[ref].map { $0 <= beat.assignSequence } == true
        }
        let unexpected = held.subtracting(worker.inFlight)
        let lost = missing.intersection(worker.missingAtLastBeat)
        let stale = unexpected.intersection(worker.unexpectedAtLastBeat)
        workers[id]!.missingAtLastBeat = missing.subtracting(lost)
        workers[id]!.unexpectedAtLastBeat = unexpected.subtracting(stale)
        if worker.assignedAt.count > 2 * worker.inFlight.count + 16 {
            workers[id]!.assignedAt = worker.assignedAt.filter { worker.inFlight.contains($0.key) }
        }
        for ref in lost.sorted(by: { ($0.job, $0.index) < ($1.job, $1.index) }) {
            workers[id]!.release(ref)
            workers[id]!.assignedAt.removeValue(forKey: ref)
            // Its credit was spent on a graph the worker never got (or whose end never came).
            workers[id]!.credits += 1
            // Charged like a failure: a photo whose outcome is lost each time (one too large
            // for a message) must not come back for ever.
            chargeAttempt(ref, on: id, stageName: "transit",
                reason: "its assignment or its outcome was lost in transit between the coordinator and worker \(id)")
            log(.warning, "photo \(ref.index) was not on worker \(id) in two heartbeats (its assignment or its outcome was lost in transit); the attempt is charged",
                job: ref.job, photo: ref.index, worker: id)
        }
        if !stale.isEmpty {
            sendToWorker(id, .dropStale(.with { drop in
                drop.photos = stale.map { ref in .with { $0.jobID = ref.job; $0.photoIndex = ref.index } }
            }))
        }
        if !lost.isEmpty { dispatch() }
    }

    /// Credit lost in transit (a grant on a connection that broke and came back) would leave a
    /// worker idle for ever: its heartbeat says how many graphs it can take, and the credit is
    /// raised to that, less the assignments still on their way to it, within its budget. Never
    /// lowered: a grant sent before the heartbeat has been counted already.
    package func resyncCredit(_ beat: Photocluster_V1_Heartbeat, from id: String) {
        guard beat.freeSlots > 0, let worker = workers[id] else { return }
        let onTheirWay = worker.inFlight.reduce(0) { count, ref in count + (worker.assignedAt[ref].map { $0 > beat.assignSequence } == true ? 1 : 0) }
        let believed = min(Int(beat.freeSlots) - onTheirWay, worker.creditLimit - worker.inFlight.count)
        guard believed > worker.credits else { return }
        worker.credits = believed
        dispatch(to: id)
    }
}
