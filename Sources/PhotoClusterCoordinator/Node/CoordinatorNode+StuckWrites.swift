import Foundation
import PhotoClusterStorage
import PhotoClusterCore
import PhotoClusterProto

/// Writes to the output directories have a time limit (`writeTimeout`). A file system that stops
/// answering (a hung NFS mount, a FUSE daemon that died) blocks a write in the kernel, where
/// nothing can interrupt it: the writer thread is given up (`BlockingWorkThreads` starts another
/// beside it), and what waited on it ends with a clear reason. A result's file fails its photo;
/// a job's index ends the job without it; a new job's directory refuses the job. Checked once a
/// second on the loop.
extension CoordinatorNode {
    func expireStuckWrites(now: MonotonicInstant = .now) {
        let limit = configuration.writeTimeout
        for (ref, since) in writing where now.seconds(since: since) > limit {
            writing.removeValue(forKey: ref)
            if let bytes = bytesByWrite.removeValue(forKey: ref) { bytesBeingWritten -= bytes }
            guard let job = jobs[ref.job], job.photo(ref.index)?.isSettled == false else { continue }
            // A write that ends after all leaves no file: its photo is settled (see `resultsWritten`).
            job.markFailed(ref.index, stage: "write", reason: Self.stuckWriteReason(job.outputDirectory.path, limit))
            photoFinished(ref.job, ref.index)
        }
        finishJobsWithStuckIndexes(now: now)
        for (token, preparing) in preparingDirectories where now.seconds(since: preparing.since) > limit {
            preparingDirectories.removeValue(forKey: token)
            refuse(preparing.client, preparing.requestID, "cannot use the output directory \(preparing.submit.outputDir): no answer from its file system within \(Int(limit)) s (is it a hung network mount?)")
        }
        writers.replaceStuckThreads()
    }

    static func stuckWriteReason(_ directory: String, _ limit: TimeInterval) -> String {
        "the output was not written in \(directory) within \(Int(limit)) s (is its file system stuck, a hung network mount?); the write was given up (cluster coordinator --write-timeout)"
    }
}

/// A submitted job whose output directory is being opened: who asked, and since when.
struct PreparingDirectory {
    let client: Data
    let requestID: UInt64
    /// The client's CURVE key (nil without CURVE): the job's owner.
    let key: String?
    let submit: Photocluster_V1_SubmitJob
    let since: MonotonicInstant
    /// The id the job will have: its claim on the directory names it.
    let jobID: String
    /// Where the workers store the outputs (a shared directory), nil for the coordinator's directory.
    let place: OutputPlace?
}
