import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Hands queued photos to workers that have credit and every filter the photo needs, preferring
/// the worker that already holds a photo's intermediate results.
extension CoordinatorNode {
    /// How far down a job's queue to look for a photo with affinity to a worker.
    static let affinityWindow = 64

    func dispatch() {
        if capabilitiesChanged {
            capabilitiesChanged = false
            failPhotosNoWorkerCanRun()
        }
        reserveWorkerForSuspects()
        // One graph per worker per round, most credit first, so work spreads evenly.
        let order = workers.values.filter { $0.credits > 0 && !$0.unreachable }.sorted { ($0.credits, $0.id) > ($1.credits, $1.id) }.map(\.id)
        var progressed = true
        while progressed {
            progressed = false
            for id in order where (workers[id]?.credits ?? 0) > 0 {
                if assignNext(to: id) { progressed = true }
            }
        }
    }

    /// Spends the credit of one worker (the common case: it just finished a photo).
    func dispatch(to id: String) {
        if capabilitiesChanged || reservedForSuspects != nil { return dispatch() }
        while (workers[id]?.credits ?? 0) > 0, assignNext(to: id) {}
    }

    /// Sends the worker its next photo, if there is one for it.
    private func assignNext(to id: String) -> Bool {
        guard let worker = workers[id], !worker.unreachable, let (jobID, photo) = nextPhoto(for: worker) else { return false }
        let graph = jobs[jobID]!.assign(photo.index, to: id)
        let ref = PhotoRef(job: jobID, index: photo.index)
        var assign = Photocluster_V1_AssignGraph()
        assign.graph = graph
        assign.sequence = worker.assignSequence + 1
        guard sendToWorker(id, .assign(assign)) else {
            // It never left (the worker is gone, or not reading): the photo goes back to its
            // place at once, for another worker, instead of waiting for this one to be lost.
            jobs[jobID]?.unassign(photo.index)
            workers[id]?.unreachable = true
            return false
        }
        workers[id]?.credits -= 1
        workers[id]?.inFlight.insert(ref)
        workers[id]?.assignSequence = assign.sequence
        workers[id]?.assignedAt[ref] = assign.sequence
        attemptsSent.recordSent(ref, attempt: graph.attempt, to: id)
        return true
    }

    /// Jobs are served in submission order; suspended jobs start nothing. A photo whose
    /// intermediate results sit on another connected worker is left for that worker.
    private func nextPhoto(for worker: WorkerRecord) -> (String, PhotoRecord)? {
        // A suspect (a photo lost with a worker that died) runs alone.
        if holdsSuspect(worker) { return nil }
        // A queued photo cached on this worker is among its cached photos and not in flight there;
        // when there is none, the affinity scan of the queue is skipped.
        let holdsQueuedPhotos = worker.cached.contains { !worker.inFlight.contains($0) }
        for id in jobOrder {
            guard jobs[id].map({ !$0.isFinished && !$0.isSuspended && $0.hasPending }) == true else { continue }
            // Read before `takeNext`, which holds the job for writing while it asks the closures.
            let losses = jobs[id]!.workerLosses
            if holdsQueuedPhotos,
                let photo = jobs[id]?.takeNext(window: Self.affinityWindow, where: { $0.cachedOn == worker.id && self.mayRun($0, losses: losses[$0.index], on: worker) }) {
                return (id, photo)
            }
            let elsewhere = { (photo: PhotoRecord) in photo.cachedOn.map { $0 != worker.id && self.workers[$0] != nil } ?? false }
            if let photo = jobs[id]?.takeNext(where: { !elsewhere($0) && self.mayRun($0, losses: losses[$0.index], on: worker) }) {
                return (id, photo)
            }
        }
        return nil
    }

    /// With workers connected, a photo whose filters none of them has fails with the reason;
    /// with none connected, photos wait for one to join.
    private func failPhotosNoWorkerCanRun() {
        guard !workers.isEmpty else { return }
        let available = workers.values.reduce(into: Set<String>()) { $0.formUnion($1.filters.keys) }
        for id in jobOrder where jobs[id]?.isFinished == false {
            // Check each distinct chain once, not each photo.
            let stranded = jobs[id]!.filterSets.filter { set in !workers.values.contains { $0.canRun(set) } }
            guard !stranded.isEmpty else { continue }
            for photo in jobs[id]!.pendingPhotos where stranded.contains(photo.filterNames) {
                // A follower queued on its own may have failed with its leader just before.
                guard jobs[id]!.photo(photo.index)?.isSettled == false else { continue }
                let missing = photo.filterNames.subtracting(available).sorted()
                let reason = missing.isEmpty
                    ? "no connected worker has all of the filters \(photo.filterNames.sorted().joined(separator: ", "))"
                    : "no connected worker has the filter \(missing.joined(separator: ", "))"
                for index in [photo.index] + jobs[id]!.followers(of: photo.index) {
                    jobs[id]?.markFailed(index, stage: "schedule", reason: reason)
                    photoFinished(id, index)
                }
            }
        }
    }
}
