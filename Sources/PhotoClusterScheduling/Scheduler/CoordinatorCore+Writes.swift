import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// The write backlog: results handed to the shell's writers and not written yet. A photo being
/// written takes no second result, dispatch holds back while the writers are behind, and a write
/// outstanding past the write timeout fails its photo.
extension CoordinatorCore {
    /// Marks the targets as being written and asks the shell to write them.
    package func queueWrite(_ result: Photocluster_V1_PhotoResult, from worker: String, encoded: Data, targets: [(index: UInt32, name: String)]) {
        for target in targets { writing[PhotoRef(job: result.jobID, index: target.index)] = now }
        // Counted under the photo's own ref, so a write given up (`expireStuckWrites`) stops
        // counting then, not a second time when it comes back.
        bytesByWrite[PhotoRef(job: result.jobID, index: result.photoIndex)] = encoded.count
        bytesBeingWritten += encoded.count
        emit(.writeResult(result, worker: worker, encoded: encoded, targets: targets))
    }

    /// The files are in place (or could not be written). A file written for a photo that settled
    /// meanwhile is removed, never kept.
    package func resultsWritten(_ writes: [WrittenResult]) {
        let wasBacklogged = writesBacklogged
        defer { if wasBacklogged && !writesBacklogged { dispatch() } }
        // Told per job once the piece is through: the statuses, then the counts once. A client
        // that hears of every photo is promised the counts after each (`EventDetail`): the shell
        // tells its job's photos one by one.
        var ends: [String: [(index: UInt32, worker: String?)]] = [:]
        defer { for (jobID, settled) in ends.sorted(by: { $0.key < $1.key }) { photosFinished(jobID, settled) } }
        for write in writes {
            if let bytes = bytesByWrite.removeValue(forKey: PhotoRef(job: write.result.jobID, index: write.result.photoIndex)) {
                bytesBeingWritten -= bytes
            }
            let result = write.result
            var settledMeanwhile: [String] = []
            defer { if !settledMeanwhile.isEmpty { emit(.removeOutputs(write, names: settledMeanwhile)) } }
            for (target, error) in zip(write.targets, write.errors) {
                writing.removeValue(forKey: PhotoRef(job: result.jobID, index: target.index))
                guard let photo = jobs[result.jobID]?.photo(target.index), !photo.isSettled else {
                    // Cancelled for good, or its write given up (`expireStuckWrites`): its file goes.
                    if error == nil { settledMeanwhile.append(target.name) }
                    continue
                }
                if let error {
                    jobs[result.jobID]?.markFailed(target.index, stage: "write", reason: "\(error)")
                } else {
                    jobs[result.jobID]?.markDone(target.index, format: result.format, width: result.width, height: result.height)
                }
                if tellsEveryPhoto(of: result.jobID) {
                    photoFinished(result.jobID, target.index, worker: write.worker)
                } else {
                    ends[result.jobID, default: []].append((target.index, write.worker))
                }
            }
        }
    }

    /// Gives up the writes outstanding longer than `limit` seconds: their photos fail (a write
    /// that ends after all leaves no file: its photo is settled).
    package func expireStuckWrites(after limit: TimeInterval) {
        for (ref, since) in writing.sorted(by: { ($0.key.job, $0.key.index) < ($1.key.job, $1.key.index) }) where now.seconds(since: since) > limit {
            writing.removeValue(forKey: ref)
            if let bytes = bytesByWrite.removeValue(forKey: ref) { bytesBeingWritten -= bytes }
            guard let job = jobs[ref.job], job.photo(ref.index)?.isSettled == false else { continue }
            job.markFailed(ref.index, stage: "write", reason: Self.stuckWriteReason(job.outputDirectory.path, limit))
            photoFinished(ref.job, ref.index)
        }
    }

    package static func stuckWriteReason(_ directory: String, _ limit: TimeInterval) -> String {
        "the output was not written in \(directory) within \(Int(limit)) s (is its file system stuck, a hung network mount?); the write was given up (cluster coordinator --write-timeout)"
    }
}
