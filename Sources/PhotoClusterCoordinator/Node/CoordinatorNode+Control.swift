import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Viewport changes, suspension and cancellation, spread to every worker.
///
/// Control is level-triggered: each job keeps its desired state and epoch, every message
/// carries the epoch, and a worker that has not acknowledged the newest epoch is sent the state
/// again on the next tick (a message to a worker that was away is otherwise simply lost).
extension CoordinatorNode {
    /// Applies a new viewport: while scrolling the job is suspended everywhere; once settled,
    /// in-flight photos out of view are cancelled, photos in view are queued (visible first),
    /// priorities follow, and the job resumes.
    func setViewport(_ jobID: String, _ viewport: Viewport) {
        guard var job = jobs[jobID], !job.isFinished else { return }
        job.epoch += 1
        job.viewport = viewport
        var cancels: [String: [UInt32]] = [:]
        var updates: [String: [Photocluster_V1_PriorityUpdate]] = [:]
        if !viewport.scrolling {
            let plan = job.planner
            for photo in job.photos where photo.isInFlight {
                let index = Int(photo.index)
                if plan.wants(index) {
                    updates[photo.worker!, default: []].append(.with {
                        $0.photoIndex = photo.index
                        $0.band = plan.band(of: index).proto
                        $0.rank = Int64(plan.rank(of: index))
                    })
                } else {
                    cancels[photo.worker!, default: []].append(photo.index)
                    workers[photo.worker!]?.inFlight.remove(PhotoRef(job: jobID, index: photo.index))
                    job.park(photo.index)
                }
            }
            // Queued photos no longer wanted simply leave the queue; they were never started.
            job.rebuildQueue()
            let parked = cancels.values.reduce(0) { $0 + $1.count }
            metrics.cancelled(parked, reason: "viewport")
            if parked > 0 { log(.debug, "viewport epoch \(job.epoch): \(parked) photo(s) out of view cancelled", job: jobID) }
        }
        jobs[jobID] = job
        journaling("job \(jobID)") { try $0.recordJobState(job) }
        controlSentAt[jobID] = (job.epoch, .now)
        for id in workers.keys {
            sendControlState(of: job, to: id, cancel: cancels[id] ?? [], priorities: updates[id] ?? [])
        }
        dispatch()
    }

    func setSuspendedByClient(_ jobID: String, _ suspended: Bool) {
        guard var job = jobs[jobID], !job.isFinished else { return }
        job.epoch += 1
        job.suspendedByClient = suspended
        jobs[jobID] = job
        journaling("job \(jobID)") { try $0.recordJobState(job) }
        controlSentAt[jobID] = (job.epoch, .now)
        for id in workers.keys { sendControlState(of: job, to: id) }
        dispatch()
    }

    /// The job's control state for one worker, at the job's epoch: cancels and priority
    /// updates if any, then suspend or resume (so a cancel never waits behind a suspension).
    func sendControlState(of job: Job, to worker: String, cancel: [UInt32] = [], priorities: [Photocluster_V1_PriorityUpdate] = []) {
        if !cancel.isEmpty {
            sendToWorker(worker, .cancel(.with {
                $0.jobID = job.id
                $0.epoch = job.epoch
                $0.photoIndices = cancel
            }))
        }
        if !priorities.isEmpty {
            sendToWorker(worker, .reprioritise(.with {
                $0.jobID = job.id
                $0.epoch = job.epoch
                $0.updates = priorities
            }))
        }
        if job.isSuspended {
            sendToWorker(worker, .suspend(.with { $0.jobID = job.id; $0.epoch = job.epoch }))
        } else {
            sendToWorker(worker, .resume(.with { $0.jobID = job.id; $0.epoch = job.epoch }))
        }
    }

    func controlAcknowledged(_ ack: Photocluster_V1_ControlAck, by worker: String) {
        guard workers[worker] != nil else { return }
        if ack.epoch > workers[worker]!.ackedEpoch[ack.jobID] ?? 0 {
            workers[worker]!.ackedEpoch[ack.jobID] = ack.epoch
        }
        // When the last worker acknowledges the newest epoch, record the round trip.
        guard let (epoch, sentAt) = controlSentAt[ack.jobID], ack.epoch == epoch,
            workers.values.allSatisfy({ ($0.ackedEpoch[ack.jobID] ?? 0) >= epoch })
        else { return }
        controlSentAt.removeValue(forKey: ack.jobID)
        jobs[ack.jobID]?.controlAckMilliseconds.append(MonotonicInstant.now.seconds(since: sentAt) * 1000)
        if let count = jobs[ack.jobID]?.controlAckMilliseconds.count, count > 1000 {
            jobs[ack.jobID]?.controlAckMilliseconds.removeFirst(count - 1000)
        }
    }

    /// Re-sends the control state to workers that have not acknowledged a job's newest epoch.
    func resendUnacknowledgedControl() {
        for jobID in jobOrder {
            guard let job = jobs[jobID], !job.isFinished, job.epoch > 1 else { continue }
            for worker in workers.values where (worker.ackedEpoch[jobID] ?? 0) < job.epoch {
                sendControlState(of: job, to: worker.id)
            }
        }
    }

    /// Cancels photos by name (every photo when `names` is empty) for good: queued ones at once,
    /// in-flight ones on the workers that hold them. Cancelling every photo cancels the job.
    func cancelPhotos(of jobID: String, names: Set<String>) {
        guard var job = jobs[jobID], !job.isFinished else { return }
        var byWorker: [String: [UInt32]] = [:]
        var cancelled: [UInt32] = []
        for photo in job.photos where !photo.isSettled && (names.isEmpty || names.contains(photo.name)) {
            if let worker = photo.worker {
                byWorker[worker, default: []].append(photo.index)
                workers[worker]?.inFlight.remove(PhotoRef(job: jobID, index: photo.index))
            }
            job.markCancelled(photo.index, reason: names.isEmpty ? "the job was cancelled" : "cancelled by the client")
            cancelled.append(photo.index)
        }
        // Followers of a photo cancelled by name no longer wait for it.
        job.rebuildQueue()
        job.epoch += 1
        jobs[jobID] = job
        journaling("job \(jobID)") { try $0.recordJobState(job) }
        metrics.cancelled(cancelled.count, reason: "client")
        for (worker, indices) in byWorker {
            sendToWorker(worker, .cancel(.with {
                $0.jobID = jobID
                $0.epoch = job.epoch
                $0.photoIndices = indices
                $0.wholeJob = names.isEmpty
            }))
        }
        photosFinished(jobID, cancelled)
        dispatch()
    }
}
