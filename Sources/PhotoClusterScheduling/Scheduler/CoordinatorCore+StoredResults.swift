import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Results of jobs whose workers store the outputs themselves (S3, a shared directory): the
/// coordinator hears where each output is and records it, holding no byte of it.
extension CoordinatorCore {
    /// A result for a job with an output place, or one that says it was stored: the photo is done
    /// where the result says, at the names the coordinator expects (nothing else is believed). A
    /// result of the other kind than the job's outputs is an attempt that failed, tried again.
    package func storedResultReceived(_ result: Photocluster_V1_PhotoResult, photo: Data, from worker: String) {
        guard let place = jobs[result.jobID]?.place else {
            return failStorage(result, from: worker, "worker \(worker) stored the photo itself, but the job's outputs go to the coordinator")
        }
        guard photo.isEmpty else {
            return failStorage(result, from: worker, "worker \(worker) sent the photo instead of storing it at \(place): it cannot store outputs (upgrade it)")
        }
        guard !result.storedAt.isEmpty else {
            return failStorage(result, from: worker, "worker \(worker) sent a result without storing the photo at \(place)")
        }
        release(worker, result.jobID, result.photoIndex, attempt: result.attempt)
        // Idempotent, as for written results: a photo already settled stays as it is.
        guard let job = jobs[result.jobID], let photo = job.photo(result.photoIndex), !photo.isSettled else { return }
        // The worker whose result settles the photo completed it, whichever attempt it was.
        workers[worker]?.completed += 1
        var ends: [(index: UInt32, worker: String?)] = []
        for index in [result.photoIndex] + job.followers(of: result.photoIndex) where job.photo(index)?.isSettled == false {
            if result.storedAt.contains(where: { job.isOutputPath($0, of: index, format: result.format) }) {
                job.markDone(index, format: result.format, width: result.width, height: result.height)
            } else {
                job.markFailed(index, stage: "store", reason: "worker \(worker) did not store it at \(job.outputPath(of: index, format: result.format))")
            }
            ends.append((index, worker))
        }
        // In a batch of reports, told with the batch's others (one journal write, one count); a
        // client that hears of every photo is promised the counts after each (`EventDetail`).
        if settledInBatch != nil, !tellsEveryPhoto(of: result.jobID) {
            settledInBatch![result.jobID, default: []].append(contentsOf: ends)
        } else {
            photosFinished(result.jobID, ends)
        }
    }

    private func failStorage(_ result: Photocluster_V1_PhotoResult, from worker: String, _ reason: String) {
        failAttempt(of: result, from: worker, stage: .write, stageName: "store", reason: reason)
    }
}
