import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Viewport changes, suspension and cancellation, spread to every worker.
///
/// Control is level-triggered: each job keeps its desired state and epoch, every message
/// carries the epoch, and a worker that has not acknowledged the newest epoch is sent the state
/// again on the next tick (a message to a worker that was away is otherwise simply lost).
extension CoordinatorCore {
    /// Why a client's viewport cannot be taken; nil when it can. The shell asks before it
    /// answers the client, and `setViewport` asks again as it applies it (the job may have
    /// ended meanwhile): one rule for both.
    package func refusal(of viewport: Photocluster_V1_Viewport, for jobID: String) -> ViewportRefusal? {
        guard let job = jobs[jobID] else { return .noJob }
        guard !job.isFinished else { return .finished }
        guard viewport.visibleStart <= viewport.visibleEnd, Int(viewport.visibleStart) < job.total else { return .outsideJob(total: job.total) }
        return nil
    }

    /// Applies a new viewport: while scrolling the job is suspended everywhere; once settled,
    /// in-flight photos out of view are cancelled, photos in view are queued (visible first),
    /// priorities follow, and the job resumes.
    ///
    /// The messages leave first: they are worked out from the job's photos in flight alone, and
    /// the parking of cancelled photos, the journal and the dispatch of newly visible photos
    /// come after. `arrivedAt`, when the request reached the coordinator, starts the clock of
    /// the workers' acknowledgement.
    package func setViewport(_ jobID: String, _ requested: Photocluster_V1_Viewport, arrivedAt: MonotonicInstant) {
        guard refusal(of: requested, for: jobID) == nil, let job = jobs[jobID] else { return }
        let viewport = Viewport(from: requested, count: job.total)
        let change = job.moveViewport(to: viewport)
        noteControlSent(jobID, epoch: change.epoch, arrivedAt: arrivedAt)
        let state = job.controlState
        for (id, worker) in workers {
            sendControlState(state, to: id, cancel: change.cancels[worker.number] ?? [], priorities: change.priorities[worker.number] ?? [])
        }
        job.settle(change)
        for (number, indices) in change.cancels {
            guard let worker = workerIDs[number] else { continue }
            for index in indices { workers[worker]?.release(PhotoRef(job: jobID, index: index)) }
        }
        let parked = change.cancelledCount
        if !viewport.scrolling { count(.cancelled(parked, reason: "viewport")) }
        if parked > 0 { log(.debug, "viewport epoch \(change.epoch): \(parked) photo(s) out of view cancelled", job: jobID) }
        emit(.journalJobState(jobID))
        dispatch()
    }

    package func setSuspendedByClient(_ jobID: String, _ suspended: Bool, arrivedAt: MonotonicInstant) {
        guard let job = jobs[jobID], !job.isFinished else { return }
        job.epoch += 1
        job.suspendedByClient = suspended
        let state = job.controlState
        noteControlSent(jobID, epoch: state.epoch, arrivedAt: arrivedAt)
        for id in workers.keys { sendControlState(state, to: id) }
        emit(.journalJobState(jobID))
        dispatch()
    }

    /// The job's control state for one worker, at the job's epoch, in one message: cancels and
    /// priority updates if any, and whether the job is suspended (the worker applies them in
    /// that order, so a cancel never waits behind a suspension).
    package func sendControlState(_ state: JobControlState, to worker: String, cancel: [UInt32] = [], priorities: [Photocluster_V1_PriorityUpdate] = []) {
        sendToWorker(worker, .control(.with {
            $0.jobID = state.jobID
            $0.epoch = state.epoch
            $0.cancel = cancel
            $0.priorities = priorities
            $0.suspended = state.suspended
        }))
    }

    /// Starts the clock of a control change (at most 1,000 wait per job: a worker that never
    /// answers must not make the list grow).
    private func noteControlSent(_ jobID: String, epoch: UInt64, arrivedAt: MonotonicInstant) {
        controlSentAt[jobID, default: []].append((epoch, arrivedAt))
        if let count = controlSentAt[jobID]?.count, count > 1000 { controlSentAt[jobID]!.removeFirst(count - 1000) }
    }

    package func controlAcknowledged(_ ack: Photocluster_V1_ControlAck, by worker: String) {
        guard workers[worker] != nil else { return }
        if ack.epoch > workers[worker]!.ackedEpoch[ack.jobID] ?? 0 {
            workers[worker]!.ackedEpoch[ack.jobID] = ack.epoch
        }
        // Every change up to the epoch all workers have acknowledged is complete: record each
        // round trip, from the request's arrival to this last acknowledgement.
        guard let pending = controlSentAt[ack.jobID], let oldest = pending.first, ack.epoch >= oldest.epoch,
            let everywhere = workers.values.map({ $0.ackedEpoch[ack.jobID] ?? 0 }).min(), everywhere >= oldest.epoch
        else { return }
        
        let complete = pending.prefix { $0.epoch <= everywhere }
        controlSentAt[ack.jobID] = Array(pending.dropFirst(complete.count))
        if controlSentAt[ack.jobID]!.isEmpty { controlSentAt.removeValue(forKey: ack.jobID) }
        jobs[ack.jobID]?.controlAckMilliseconds.append(contentsOf: complete.map { now.seconds(since: $0.at) * 1000 })
        if let count = jobs[ack.jobID]?.controlAckMilliseconds.count, count > 1000 {
            jobs[ack.jobID]?.controlAckMilliseconds.removeFirst(count - 1000)
        }
    }

    /// Re-sends the control state to workers that have not acknowledged a job's newest epoch.
    package func resendUnacknowledgedControl() {
        for jobID in jobOrder {
            guard let state = jobs[jobID].flatMap({ $0.isFinished ? nil : $0.controlState }), state.epoch > 1 else { continue }
            for worker in workers.values where (worker.ackedEpoch[jobID] ?? 0) < state.epoch {
                sendControlState(state, to: worker.id)
            }
        }
    }

    /// Cancels photos by name (every photo when `names` is empty) for good: queued ones at once,
    /// in-flight ones on the workers that hold them. Cancelling every photo cancels the job.
    package func cancelPhotos(of jobID: String, names: Set<String>) {
        guard let job = jobs[jobID], !job.isFinished else { return }
        let named = { (photo: PhotoRecord) in names.isEmpty || names.contains(job.name(of: photo.index)) }
        // The workers hear first: the photos in flight are found without looking at the others.
        var byWorker: [String: [UInt32]] = [:]
        for index in job.inFlight.keys {
            guard let photo = job.photo(index), let worker = workerIDs[photo.worker], named(photo) else { continue }
            byWorker[worker, default: []].append(index)
        }
        job.epoch += 1
        let epoch = job.epoch
        for (worker, indices) in byWorker {
            sendToWorker(worker, .cancel(.with {
                $0.jobID = jobID
                $0.epoch = epoch
                $0.photoIndices = indices
                $0.wholeJob = names.isEmpty
            }))
            for index in indices { workers[worker]?.release(PhotoRef(job: jobID, index: index)) }
        }
        // Followers of a photo cancelled by name no longer wait for it (`markCancelled` sees to it).
        let reason = names.isEmpty ? "the job was cancelled" : "cancelled by the client"
        var cancelled: [UInt32] = []
        for index in 0..<UInt32(job.total) {
            guard let photo = job.photo(index), !photo.isSettled, named(photo) else { continue }
            job.markCancelled(index, reason: reason)
            cancelled.append(index)
        }
        emit(.journalJobState(jobID))
        count(.cancelled(cancelled.count, reason: "client"))
        photosFinished(jobID, cancelled)
        dispatch()
    }
}

/// Why a viewport is refused (`CoordinatorCore.refusal(of:for:)`).
package enum ViewportRefusal: Equatable {
    case noJob
    case finished
    /// Its visible range starts past the job's last photo, or ends before it starts.
    case outsideJob(total: Int)
}
