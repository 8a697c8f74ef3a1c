import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Hands queued photos to workers that have credit, every filter the photo needs and the protocol
/// it needs (`ProtocolNeeds`), preferring the worker that already holds a photo's intermediate
/// results. A worker's photos of one turn
/// leave together (see `sendAssignedGraphs`).
extension CoordinatorCore {
    /// How far down a job's queue to look for a photo with affinity to a worker.
    package static let affinityWindow = 64
    /// Results waiting for the writer threads, at most, before dispatch holds back: a disk slower
    /// than the workers must not make the coordinator hold every result in memory.
    package static let writeBacklog = (photos: 4096, bytes: 256 << 20)

    /// The writer threads are behind: no graph goes out until they catch up (`resultsWritten`).
    package var writesBacklogged: Bool { writing.count >= Self.writeBacklog.photos || bytesBeingWritten >= Self.writeBacklog.bytes }

    package func dispatch() {
        if capabilitiesChanged {
            capabilitiesChanged = false
            failPhotosNoWorkerCanRun()
        }
        guard !writesBacklogged else { return }
        reserveWorkerForSuspects()
        // One graph per worker per round, most credit first, so work spreads evenly.
        let order = workers.values.filter { $0.credits > 0 && !$0.unreachable && $0.draining == nil }.sorted { ($0.credits, $0.id) > ($1.credits, $1.id) }.map(\.id)
        var progressed = true
        while progressed {
            progressed = false
            for id in order where assign(upTo: 1, to: id) > 0 { progressed = true }
        }
    }

    /// Spends the credit of one worker (the common case: it just finished photos).
    package func dispatch(to id: String) {
        // A draining worker's reports free photos it hands back, not credit it will spend: they
        // go to the other workers at once.
        if capabilitiesChanged || reservedForSuspects != nil || workers[id]?.draining != nil { return dispatch() }
        guard !writesBacklogged else { return }
        assign(upTo: .max, to: id)
    }

    /// Gives the worker up to `limit` photos, as many as its credit and the queues allow, and
    /// answers how many. They leave with the other graphs of this turn (`sendAssignedGraphs`).
    @discardableResult
    private func assign(upTo limit: Int, to id: String) -> Int {
        // Read once for the batch; the record is changed only after, so no copy of it is alive
        // while it changes.
        guard let worker = workers[id], !worker.unreachable, worker.draining == nil, worker.credits > 0, !holdsSuspect(worker) else { return 0 }
        var batch = graphsToSend.removeValue(forKey: id) ?? GraphBatch()
        var refs: [PhotoRef] = []
        while refs.count < min(limit, worker.credits),
            let (jobID, photo, suspect) = nextPhoto(for: worker, holdsNothing: worker.inFlight.isEmpty && refs.isEmpty) {
            let taken = jobs[jobID]!.assign(photo.index, to: worker.number, encodingInto: &batch.encoded)
            let ref = PhotoRef(job: jobID, index: photo.index)
            batch.sent.append((ref, taken.attempt, taken.epoch))
            refs.append(ref)
            // A suspect (a photo lost with a worker that died) runs alone.
            if suspect { break }
        }
        if !batch.sent.isEmpty { graphsToSend[id] = batch }
        guard !refs.isEmpty else { return 0 }
        workers[id]?.spendCredit(holding: refs)
        return refs.count
    }

    /// Jobs are served in submission order; suspended jobs start nothing. A photo whose
    /// intermediate results sit on another connected worker is left for that worker.
    /// `holdsNothing`: the worker has no photo, counting those given to it this turn.
    private func nextPhoto(for worker: WorkerRecord, holdsNothing: Bool) -> (job: String, photo: PhotoRecord, suspect: Bool)? {
        for id in openJobs {
            // A worker too old for every photo of the job is not asked to look through its queue.
            guard let job = jobs[id], job.isDispatchable, worker.speaks(job.neededProtocols.lowest) else { continue }
            let (chains, losses) = (job.chainNames, job.workerLosses)
            let mayRun = { (photo: PhotoRecord) in
                self.mayRun(photo, filters: chains[Int(photo.chain)], losses: losses[photo.index], on: worker, holdsNothing: holdsNothing)
            }
            // A queued photo cached on this worker is among its cached photos and not in flight
            // there; when there is none, the affinity scan of the queue is skipped.
            if worker.holdsCachedPhotosNotInFlight,
                let photo = job.takeNext(window: Self.affinityWindow, where: { $0.cachedOn == worker.number && mayRun($0) }) {
                return (id, photo, losses[photo.index] != nil)
            }
            // A suspect is not left for the worker holding its stages: that worker may be one
            // it was lost on, which takes it only when no other can. Nor is any photo left for
            // a draining worker, which takes nothing more.
            let elsewhere = { (photo: PhotoRecord) in
                photo.cachedOn != .none && photo.cachedOn != worker.number && losses[photo.index] == nil
                    && self.workerIDs[photo.cachedOn].flatMap { self.workers[$0] }.map { $0.draining == nil } == true
            }
            if let photo = job.takeNext(where: { !elsewhere($0) && mayRun($0) }) {
                return (id, photo, losses[photo.index] != nil)
            }
        }
        return nil
    }

    /// With workers connected, a photo whose filters none of them has fails with the reason;
    /// with none connected, photos wait for one to join.
    private func failPhotosNoWorkerCanRun() {
        guard !workers.isEmpty else { return }
        let available = workers.values.reduce(into: Set<String>()) { $0.formUnion($1.filters.keys) }
        for id in openJobs {
            // Check each distinct chain once, not each photo.
            guard let chains = jobs[id].flatMap({ $0.isFinished ? nil : $0.chainNames }) else { continue }
            let stranded = Set(chains.indices.filter { chain in !workers.values.contains { $0.canRun(chains[chain]) } })
            guard !stranded.isEmpty else { continue }
            for photo in jobs[id]!.pendingPhotos where stranded.contains(Int(photo.chain)) {
                // A follower queued on its own may have failed with its leader just before.
                guard jobs[id]!.photo(photo.index)?.isSettled == false else { continue }
                let names = chains[Int(photo.chain)]
                let missing = names.subtracting(available).sorted()
                let reason = missing.isEmpty
                    ? "no connected worker has all of the filters \(names.sorted().joined(separator: ", "))"
                    : "no connected worker has the filter \(missing.joined(separator: ", "))"
                for index in [photo.index] + jobs[id]!.followers(of: photo.index) {
                    jobs[id]?.markFailed(index, stage: "schedule", reason: reason)
                    photoFinished(id, index)
                }
            }
        }
    }
}
