import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Workers' reports about photos (progress, results, failures, cancellations), believed only
/// from the worker each attempt was sent to, and what becomes of the photos.
extension CoordinatorCore {
    /// A worker's batch: each report handled in order exactly as if it had come alone, then the
    /// credit spent at once (the graphs it frees leave together when the shell's turn ends).
    /// Photos its stored results settle are told once the batch is through (`settledInBatch`).
    package func receiveReports(_ batch: Photocluster_V1_WorkerReports, photos: ArraySlice<Data>, from id: String) {
        var photos = photos
        var handedBack = false
        settledInBatch = [:]
        defer {
            let settled = settledInBatch
            settledInBatch = nil
            for (jobID, ends) in settled ?? [:] { photosFinished(jobID, ends) }
        }
        for report in batch.reports {
            guard let body = report.body else { continue }
            var photo = Data()
            // A missing frame makes an empty photo, which fails the attempt (and retries it).
            if case .result(let result) = body { photo = result.photoInFrame ? photos.popFirst() ?? Data() : result.encoded }
            if handle(body, photo: photo, from: id, dispatching: false) { handedBack = true }
        }
        if batch.credit > 0 {
            grantCredit(Int(batch.credit), to: id)
            dispatch(to: id)
        }
        if handedBack { dispatch() }
    }

    /// One report about a photo, alone or from a batch: believed only from the worker its attempt
    /// was sent to (`admitReport`), then handled. `photo`: a result's encoded bytes. Answers
    /// whether it handed a photo back to the queue (and, `dispatching`, on to a worker).
    @discardableResult
    package func handle(_ report: Photocluster_V1_WorkerReport.OneOf_Body, photo: Data = Data(), from id: String, dispatching: Bool = true) -> Bool {
        switch report {
        case .progress(let progress):
            guard admitReport(.progress, job: progress.jobID, photo: progress.photoIndex, attempt: progress.attempt, epoch: progress.graphEpoch, from: id) else { return false }
            stageFinished(progress, on: id)
        case .result(let result):
            guard admitReport(.result, job: result.jobID, photo: result.photoIndex, attempt: result.attempt, epoch: result.graphEpoch, from: id) else { return false }
            jobs[result.jobID]?.memoryGrants[result.photoIndex] = nil
            resultReceived(result, photo: photo, from: id)
        case .failure(let failure):
            guard admitReport(.failure, job: failure.jobID, photo: failure.photoIndex, attempt: failure.attempt, epoch: failure.graphEpoch, from: id) else { return false }
            jobs[failure.jobID]?.memoryGrants[failure.photoIndex] = nil
            photoFailed(failure, from: id)
        case .cancelled(let cancelled):
            guard admitReport(.cancelled, job: cancelled.jobID, photo: cancelled.photoIndex, attempt: cancelled.attempt, epoch: cancelled.graphEpoch, from: id) else { return false }
            jobs[cancelled.jobID]?.memoryGrants[cancelled.photoIndex] = nil
            return photoCancelled(cancelled, from: id, dispatching: dispatching)
        case .ack(let ack):
            controlAcknowledged(ack, by: id)
        case .spans(let spans):
            guard admitReport(.spans, job: spans.jobID, photo: spans.photoIndex, attempt: spans.attempt, epoch: spans.graphEpoch, from: id) else { return false }
            emit(.spansReported(spans, worker: id))
        case .admitted(let admitted):
            guard admitReport(.admitted, job: admitted.jobID, photo: admitted.photoIndex, attempt: admitted.attempt, epoch: admitted.graphEpoch, from: id) else { return false }
            jobs[admitted.jobID]?.memoryGrants[admitted.photoIndex] = admitted.memoryGrantBytes
        }
        return false
    }

    /// The outcome is for the attempt the coordinator is waiting for, on the worker it sent it to.
    /// A settled photo waits for none: settling clears its worker.
    private func isCurrent(_ worker: String, _ job: String, _ index: UInt32, attempt: UInt32) -> Bool {
        guard let photo = jobs[job]?.photo(index), let number = workers[worker]?.number else { return false }
        return photo.worker == number && photo.attempts == attempt
    }

    /// The worker no longer holds this attempt. A ref names no attempt, so an outcome of an
    /// earlier attempt (cancelled, then sent again to the same worker) leaves the current one's.
    package func release(_ worker: String, _ job: String, _ index: UInt32, attempt: UInt32) {
        guard let number = workers[worker]?.number else { return }
        if let photo = jobs[job]?.photo(index), photo.worker == number, photo.attempts != attempt { return }
        workers[worker]?.release(PhotoRef(job: job, index: index))
    }

    private func stageFinished(_ progress: Photocluster_V1_StageProgress, on worker: String) {
        guard let photo = jobs[progress.jobID]?.photo(progress.photoIndex) else { return }
        if !photo.isSettled { noteCached(photo, of: progress.jobID, on: worker) }
        let wasted = jobs[progress.jobID]?.account(progress) ?? false
        emit(.stageReported(progress, worker: worker, wasted: wasted))
        guard photo.worker == workers[worker]?.number else { return }
        workers[worker]?.heardOf(PhotoRef(job: progress.jobID, index: progress.photoIndex), at: now)
        switch progress.stage {
        case .download: jobs[progress.jobID]?.markStage(progress.photoIndex, .downloaded)
        case .filter: jobs[progress.jobID]?.markStage(progress.photoIndex, .filtered)
        default: break
        }
    }

    /// Whatever attempt it was, the worker now holds this photo's intermediate results. A photo
    /// has one holder, and only until it settles (progress can arrive after a cancel): a ref left
    /// in a worker's `cached` is never removed, and keeps the affinity scan running for it.
    private func noteCached(_ photo: PhotoRecord, of jobID: String, on worker: String) {
        guard let number = workers[worker]?.number else { return }
        let ref = PhotoRef(job: jobID, index: photo.index)
        if photo.cachedOn != number, let previous = workerIDs[photo.cachedOn] { workers[previous]?.forgetCached(ref) }
        jobs[jobID]?.noteCached(photo.index, on: number)
        workers[worker]?.noteCached(ref)
    }

    private func resultReceived(_ result: Photocluster_V1_PhotoResult, photo: Data, from worker: String) {
        // A job whose workers store its outputs hears where they are, never the bytes.
        if jobs[result.jobID]?.place != nil || !result.storedAt.isEmpty { return storedResultReceived(result, photo: photo, from: worker) }
        if photo.count > resultLimit { return refuseOversizedResult(result, bytes: photo.count, from: worker) }
        guard photo.isEmpty else { return photoSucceeded(result, photo: photo, from: worker) }
        // Never an empty file that looks finished: the attempt failed, and is retried.
        failAttempt(of: result, from: worker, stage: .encode, stageName: "result", reason: "worker \(worker) sent a result without the encoded photo")
    }

    /// Fails the attempt `result` answers, as a transient failure (the photo is tried again): the
    /// result itself was not what the job needs.
    package func failAttempt(of result: Photocluster_V1_PhotoResult, from worker: String, stage: Photocluster_V1_Stage, stageName: String, reason: String) {
        failAttempt(PhotoRef(job: result.jobID, index: result.photoIndex), attempt: result.attempt, on: worker,
            stage: stage, stageName: stageName, reason: reason, transient: true)
    }

    /// Fails an attempt of a photo as if its worker had reported the failure: transient ones are
    /// tried again until `--max-attempts`.
    package func failAttempt(
        _ ref: PhotoRef, attempt: UInt32, on worker: String, stage: Photocluster_V1_Stage, stageName: String, reason: String, transient: Bool
    ) {
        photoFailed(.with {
            $0.jobID = ref.job
            $0.photoIndex = ref.index
            $0.attempt = attempt
            $0.stage = stage
            $0.stageName = stageName
            $0.reason = reason
            $0.transient = transient
        }, from: worker)
    }

    private func photoSucceeded(_ result: Photocluster_V1_PhotoResult, photo encoded: Data, from worker: String) {
        release(worker, result.jobID, result.photoIndex, attempt: result.attempt)
        // Results are idempotent: a photo already finished or being written (say, after a
        // requeue) is not written twice. A result from an earlier attempt is still a good result.
        guard let job = jobs[result.jobID], let photo = job.photo(result.photoIndex), !photo.isSettled,
            writing[PhotoRef(job: result.jobID, index: result.photoIndex)] == nil
        else { return }
        let followers = job.followers(of: result.photoIndex)
        // The worker whose result settles the photo completed it, whichever attempt it was.
        workers[worker]?.completed += 1
        let targets: [(index: UInt32, name: String)] = ([result.photoIndex] + followers).compactMap { index in
            guard let target = job.photo(index), !target.isSettled else { return nil }
            return (index, OutputNaming.fileName(stem: job.stem(of: index), format: result.format.fileExtension))
        }
        queueWrite(result, from: worker, encoded: encoded, targets: targets)
    }

    package func photoFailed(_ failure: Photocluster_V1_PhotoFailure, from worker: String) {
        release(worker, failure.jobID, failure.photoIndex, attempt: failure.attempt)
        guard isCurrent(worker, failure.jobID, failure.photoIndex, attempt: failure.attempt),
            let photo = jobs[failure.jobID]?.photo(failure.photoIndex)
        else { return }
        // Only failed tries count: a photo sent again for any other reason has lost nothing.
        let failures = photo.failures + 1
        jobs[failure.jobID]?.photos[Int(failure.photoIndex)].failures = failures
        if failure.transient && failures < settings.maxAttempts {
            let backoff = settings.retryBackoff * pow(2, Double(failures - 1))
            jobs[failure.jobID]?.noteFailureReason(failure.photoIndex, stage: failure.stageName, reason: failure.reason)
            jobs[failure.jobID]?.scheduleRetry(failure.photoIndex, after: min(backoff, 30), now: now)
            count(.retried)
            log(.info, "photo \(failure.photoIndex) retried in \(String(format: "%.2f", min(backoff, 30))) s after \(failure.stageName): \(failure.reason)",
                job: failure.jobID, photo: failure.photoIndex, worker: worker)
            return
        }
        let reason = failures > 1 ? "\(failure.reason) (after \(failures) attempts)" : failure.reason
        for index in [failure.photoIndex] + (jobs[failure.jobID]?.followers(of: failure.photoIndex) ?? []) {
            jobs[failure.jobID]?.markFailed(index, stage: failure.stageName, reason: reason)
            photoFinished(failure.jobID, index)
        }
    }

    /// Whether the photo went back to the queue (and, `dispatching`, to a worker).
    private func photoCancelled(_ cancelled: Photocluster_V1_PhotoCancelled, from worker: String, dispatching: Bool) -> Bool {
        release(worker, cancelled.jobID, cancelled.photoIndex, attempt: cancelled.attempt)
        guard isCurrent(worker, cancelled.jobID, cancelled.photoIndex, attempt: cancelled.attempt) else { return false }
        // The worker gave it up without being asked (it is shutting down, or the graph came from
        // an older viewport): run it again.
        jobs[cancelled.jobID]?.requeue(cancelled.photoIndex)
        count(.requeued)
        if dispatching { dispatch() }
        return true
    }

    /// A photo reached a terminal state: tell the clients, and finish the job when it was the last.
    package func photoFinished(_ jobID: String, _ index: UInt32, worker: String? = nil) {
        photosFinished(jobID, [index], worker: worker)
    }

    /// Photos settled together (a cancel, a batch of results): every photo's status, then the
    /// counts once, then the job's end, so a client hears of each photo before the job's summary.
    package func photosFinished(_ jobID: String, _ indices: [UInt32], worker: String? = nil) {
        photosFinished(jobID, indices.map { ($0, worker) })
    }

    /// As above, each photo with the worker whose result settled it.
    package func photosFinished(_ jobID: String, _ ends: [(index: UInt32, worker: String?)]) {
        guard jobs[jobID] != nil, !ends.isEmpty else { return }
        var settled: [(photo: PhotoRecord, worker: String?)] = []
        for (index, worker) in ends {
            guard let job = jobs[jobID], job.photo(index) != nil else { continue }
            job.numberSettled(index)
            let photo = job.photo(index)!
            // Settled: no longer a reason to send it back to the worker that holds its stages,
            // and no report about it is believed any more.
            if photo.cachedOn != .none, let holder = workerIDs[photo.cachedOn] {
                workers[holder]?.forgetCached(PhotoRef(job: jobID, index: index))
            }
            attemptsSent.forget(PhotoRef(job: jobID, index: index))
            settled.append((photo, worker))
        }
        guard let job = jobs[jobID] else { return }
        emit(.photosSettled(job: jobID, settled, progress: job.progress))
        if job.allSettled { beginFinishing(jobID) }
    }
}
