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
        tellCore(.writesOverdue(limit: limit), now: now)
        for (token, preparing) in preparingDirectories where now.seconds(since: preparing.since) > limit {
            preparingDirectories.removeValue(forKey: token)
            refuse(preparing.client, preparing.requestID, "cannot use the output directory \(preparing.submit.outputDir): no answer from its file system within \(Int(limit)) s (is it a hung network mount?)")
        }
        writers.replaceStuckThreads()
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
