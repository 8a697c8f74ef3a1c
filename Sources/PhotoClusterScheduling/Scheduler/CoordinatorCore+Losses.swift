import Foundation
import PhotoClusterCore

/// A worker lost while it held photos, and the photos that crash workers ("poison photos").
///
/// The coordinator cannot know what a dead worker was running at the moment it died: what it last
/// said is up to a heartbeat old, and a photo that starts right after and kills it at once never
/// appears in it. Dask charges every task a dead worker held, so bystanders fail beside the
/// culprit. Here every photo the worker held becomes a suspect instead: it goes behind the photos
/// that never hurt anyone and runs alone on a worker from then on (and not on one it was lost on
/// while another can take it). A loss is charged only to a photo that was its worker's only one:
/// then it is the culprit, or the worker died of something else under it. A bystander is never
/// charged, and clears itself by finishing alone; a photo charged `maxWorkerLosses` times fails
/// and is never sent again. A worker declared lost for its silence that comes back as the same
/// process (stopped, or cut off) had not died: what was recorded for it is forgiven.
extension CoordinatorCore {
    /// Records the loss of `worker` for each photo in `held` (charged when it is the only one),
    /// then requeues the photo behind the others, or fails it when it has been charged too often.
    /// `forgivable`: the worker was only silent, and may come back.
    package func chargeLosses(_ held: [PhotoRef], lostWith worker: WorkerRecord, forgivable: Bool) {
        let alone = held.count == 1
        var charged: [PhotoRef] = []
        for ref in held {
            guard let job = jobs[ref.job], job.photo(ref.index)?.isSettled == false else { continue }
            let losses = job.recordLoss(ref.index, worker: worker.id, alone: alone)
            emit(.journalLosses(job: ref.job, photo: ref.index, losses))
            if losses.count >= settings.maxWorkerLosses {
                failPoisonPhoto(ref, losses, of: job)
            } else {
                job.requeue(ref.index)
                count(.requeued)
                charged.append(ref)
            }
        }
        if forgivable && !charged.isEmpty {
            recentLosses[worker.id] = RecentLoss(incarnation: worker.incarnation, photos: charged, alone: alone, at: now)
        }
        if let ref = charged.first, alone {
            log(.warning, "worker \(worker.id) died holding only photo \(ref.index): charged (\(jobs[ref.job]?.workerLosses[ref.index]?.count ?? 0) of \(settings.maxWorkerLosses)); it runs alone next",
                job: ref.job, photo: ref.index, worker: worker.id)
        } else if !charged.isEmpty {
            let described = charged.map { "\($0.index) of \($0.job)" }.joined(separator: ", ")
            log(.warning, "worker \(worker.id) died holding photos \(described): none charged (the culprit is unknown); each runs alone next",
                worker: worker.id)
        }
    }

    /// The photo has been on too many workers that died: it fails, with its copies, for good.
    private func failPoisonPhoto(_ ref: PhotoRef, _ losses: WorkerLosses, of job: Job) {
        let granted = losses.grantBytes > 0 ? ", which was granted \(Self.mebibytes(losses.grantBytes)) of memory" : ""
        let reason = "worker lost \(losses.count) times while processing this photo\(granted); it may crash workers"
        count(.poisonPhoto)
        log(.warning, "photo \(ref.index) (\(job.name(of: ref.index))) failed: \(reason) (workers lost: \(losses.workers.joined(separator: ", ")))",
            job: ref.job, photo: ref.index, worker: losses.workers.last)
        for index in [ref.index] + job.followers(of: ref.index) {
            job.markFailed(index, stage: "worker", reason: reason)
            photoFinished(ref.job, index)
        }
    }

    /// "812 MiB".
    static func mebibytes(_ bytes: UInt64) -> String {
        "\((bytes + (1 << 19)) >> 20) MiB"
    }

    /// A worker declared lost for its silence says hello again as the same process: it was
    /// stopped or cut off, not dead, so the photos charged for it are cleared of that loss.
    package func forgiveLosses(ofReturning id: String, incarnation: String) {
        guard let loss = recentLosses.removeValue(forKey: id), !incarnation.isEmpty, loss.incarnation == incarnation else { return }
        for ref in loss.photos {
            guard let job = jobs[ref.job], job.photo(ref.index)?.isSettled == false else { continue }
            let left = job.forgiveLoss(ref.index, worker: id, alone: loss.alone)
            emit(.journalLosses(job: ref.job, photo: ref.index, left))
        }
        log("worker \(id) came back as the same process: the loss recorded for its \(loss.photos.count) photo(s) is forgiven", worker: id)
    }

    /// Forgets losses too old to be forgiven (a worker that comes back after this long is
    /// treated like any other).
    package func forgetOldLosses() {
        recentLosses = recentLosses.filter { now.seconds(since: $0.value.at) < RecentLoss.kept }
    }

    // MARK: - Dispatch

    /// Whether `worker` may be sent this queued photo: it has the photo's filters and speaks the
    /// protocol the photo needs (`ProtocolNeeds`); a suspect needs
    /// the worker to itself and keeps off the workers it was lost on while another could take it;
    /// a worker kept for suspects takes nothing else. `filters` and `losses`: the photo's, nil for
    /// none (it reads no job: it is asked while a job's queue is being changed). `holdsNothing`:
    /// the worker has no photo, those given to it this turn counted.
    package func mayRun(_ photo: PhotoRecord, filters: Set<String>, losses: WorkerLosses?, on worker: WorkerRecord, holdsNothing: Bool) -> Bool {
        guard worker.canRun(filters), worker.speaks(photo.neededProtocol) else { return false }
        guard let losses else { return reservedForSuspects != worker.id }
        return holdsNothing && suits(worker, losses, filters: filters, neededProtocol: photo.neededProtocol)
    }

    /// A suspect runs alone: a worker holding one is sent nothing more until it ends.
    package func holdsSuspect(_ worker: WorkerRecord) -> Bool {
        worker.inFlight.contains { jobs[$0.job]?.isSuspect($0.index) == true }
    }

    /// Keeps one worker for suspects while any wait: it is sent nothing else, so it empties and
    /// a suspect gets it to itself. Without it, a busy cluster would keep every worker busy
    /// with other photos and a suspect would wait as long as new work comes.
    package func reserveWorkerForSuspects() {
        let waiting = jobOrder.lazy.compactMap { id in
            self.jobs[id].map { job in
                job.queuedSuspects.map { (job.filterNames(of: job.photos[Int($0)]), job.workerLosses[$0]!, job.photos[Int($0)].neededProtocol) }
            }
        }
        .first { !$0.isEmpty }
        guard let waiting, let (filters, losses, neededProtocol) = waiting.first else {
            reservedForSuspects = nil
            return
        }
        if let reserved = reservedForSuspects.flatMap({ workers[$0] }), suits(reserved, losses, filters: filters, neededProtocol: neededProtocol) { return }
        // The worker that will empty soonest: the one holding the fewest photos.
        reservedForSuspects = workers.values.filter { suits($0, losses, filters: filters, neededProtocol: neededProtocol) }
            .min { ($0.inFlight.count, $0.id) < ($1.inFlight.count, $1.id) }?.id
    }

    /// Whether a suspect may go to `worker`: it has the filters and the protocol, and the suspect
    /// was not lost on it, unless no other connected worker could take the suspect.
    private func suits(_ worker: WorkerRecord, _ losses: WorkerLosses, filters: Set<String>, neededProtocol: UInt8) -> Bool {
        guard worker.canRun(filters), worker.speaks(neededProtocol) else { return false }
        guard losses.workers.contains(worker.id) else { return true }
        return !workers.values.contains {
            $0.id != worker.id && !losses.workers.contains($0.id) && $0.canRun(filters) && $0.speaks(neededProtocol)
        }
    }
}

/// The photos charged when a worker was declared lost for its silence, kept a while in case the
/// same process comes back.
package struct RecentLoss {
    /// Ten minutes: a worker paused or cut off longer than that is treated as gone.
    package static let kept: TimeInterval = 600
    package let incarnation: String
    package let photos: [PhotoRef]
    /// The worker held only this one photo: the loss was charged to it.
    package let alone: Bool
    package let at: MonotonicInstant
}
