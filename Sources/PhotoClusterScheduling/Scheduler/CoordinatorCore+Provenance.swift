import Foundation
import PhotoClusterProto

/// Result provenance: a worker's report about a photo (a result, a failure, stage progress, a
/// cancellation) is believed only from a worker that attempt was sent to. Every path that takes
/// such a report calls `admitReport` first, batched or not.
extension CoordinatorCore {
    package enum WorkerReport: String {
        case progress, result, failure, cancelled, spans, admitted

        /// Whether the report ends its attempt.
        package var isOutcome: Bool { self != .progress && self != .spans && self != .admitted }
    }

    /// Whether to act on `report` about attempt `attempt` (0: any) of photo `index` of `jobID`
    /// from `worker`, in a graph of epoch `epoch` (0: any, from a worker that does not say). A
    /// photo that settled ignores late reports, as it always has (the worker's hold on it is
    /// released); a report about a photo the worker was never sent (that attempt at that
    /// epoch), or that does not exist, is dropped, counted in
    /// `photocluster_rejected_results_total` and logged.
    package func admitReport(_ report: WorkerReport, job jobID: String, photo index: UInt32, attempt: UInt32, epoch: UInt64, from worker: String) -> Bool {
        let ref = PhotoRef(job: jobID, index: index)
        guard let photo = jobs[jobID]?.photo(index) else {
            rejectReport(report, ref, attempt: attempt, from: worker, reason: "unknown_photo", why: "there is no such photo")
            return false
        }
        guard !photo.isSettled else {
            if report.isOutcome { workers[worker]?.release(ref) }
            return false
        }
        guard attemptsSent.wasSent(ref, attempt: attempt, epoch: epoch, to: worker) else {
            let why =
                attempt == 0 ? "no attempt of it was sent to that worker"
                : attemptsSent.wasSent(ref, attempt: attempt, to: worker)
                    ? "its graph of epoch \(epoch) came from an earlier coordinator, which sent attempt \(attempt) too"
                : "attempt \(attempt) of it was not sent to that worker"
            rejectReport(report, ref, attempt: attempt, from: worker, reason: "not_sent", why: why)
            return false
        }
        if report.isOutcome { attemptsSent.ended(ref, attempt: attempt, on: worker) }
        return true
    }

    private func rejectReport(_ report: WorkerReport, _ ref: PhotoRef, attempt: UInt32, from worker: String, reason: String, why: String) {
        emit(.rejected(worker: worker, key: nil, what: report.rawValue, reason: reason, why: why, job: ref.job, photo: ref.index))
    }
}
