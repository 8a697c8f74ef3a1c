import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Holding workers to `WorkerBudgets`: the credit a worker may claim, how long it may hold a
/// photo without progress, and the largest result it may send. A photo taken back from a live
/// worker counts as a failed attempt, so no path brings a photo back for ever uncharged.
extension CoordinatorCore {
    /// The largest result a worker may send here (announced in each welcome).
    package var resultLimit: Int64 { settings.resultLimit }

    /// Credit a worker grants, up to what its budget allows; a worker that claims more is said
    /// once in the log and held to its bound.
    package func grantCredit(_ grant: Int, to id: String) {
        guard let worker = workers[id], worker.grantCredit(grant), !worker.overclaimed else { return }
        worker.overclaimed = true
        log(.warning, "worker \(id) claimed more credit than \(worker.creditLimit) graphs at once (it announced concurrency \(worker.concurrency); "
            + "the coordinator believes at most \(settings.workerBudgets.maxConcurrency), --max-worker-concurrency): it is held to \(worker.creditLimit)",
            worker: id)
    }

    /// Photos held past the assignment deadline without progress go to another worker, the
    /// attempt charged; the worker is told to drop them.
    package func takeBackOverdueAssignments() {
        let timeout = settings.workerBudgets.assignmentTimeout
        for worker in workers.values {
            let overdue = worker.overdue(after: timeout, now: now) { self.jobs[$0.job]?.isSuspended ?? false }
            guard !overdue.isEmpty else { continue }
            for ref in overdue {
                chargeAttempt(ref, on: worker.id, stageName: "assignment",
                    reason: "worker \(worker.id) held it for \(StageTimeLimit.seconds(timeout)) s without progress "
                        + "(cluster coordinator --assignment-timeout); it was given to another worker")
            }
            sendToWorker(worker.id, .dropStale(.with { drop in
                drop.photos = overdue.map { ref in .with { $0.jobID = ref.job; $0.photoIndex = ref.index } }
            }))
        }
    }

    /// A result larger than this coordinator takes: the photo fails for good (trying again makes
    /// the same result), with the figures and what to do.
    package func refuseOversizedResult(_ result: Photocluster_V1_PhotoResult, bytes: Int, from worker: String) {
        failAttempt(PhotoRef(job: result.jobID, index: result.photoIndex), attempt: result.attempt, on: worker,
            stage: .encode, stageName: "result", reason: ResultSizeLimit.refusal(bytes: bytes, limit: resultLimit), transient: false)
    }

    /// The current attempt of a photo on a live worker ends without an outcome from it: counted
    /// as a transient failure (tried again until `--max-attempts`, then failed with `reason`).
    package func chargeAttempt(_ ref: PhotoRef, on worker: String, stageName: String, reason: String) {
        guard let photo = jobs[ref.job]?.photo(ref.index), !photo.isSettled, photo.worker == workers[worker]?.number else {
            workers[worker]?.release(ref)
            return
        }
        failAttempt(ref, attempt: photo.attempts, on: worker, stage: .schedule, stageName: stageName, reason: reason, transient: true)
    }
}
