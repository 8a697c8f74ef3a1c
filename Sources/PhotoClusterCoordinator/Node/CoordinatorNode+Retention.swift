import Foundation
import PhotoClusterScheduling

/// A coordinator runs for months: the core keeps every open job and the last finished ones
/// (`finishedJobsKept`, for `cluster status`, `cluster watch` and the dashboard) and forgets the
/// rest; the node drops what it keeps of them, in memory and in the journal. A forgotten job's
/// outcome stays where its user looks for it: the photos and `index.json` in its output directory.
extension CoordinatorNode {
    /// `.jobsForgotten`.
    func forget(_ forgotten: [Job]) {
        for job in forgotten {
            let id = job.id
            subscribers.removeValue(forKey: id)
            jobsToldEveryPhoto.remove(id)
            jobsWithWaitingCounts.remove(id)
            outputDirectories.removeValue(forKey: id)
            outputProblems.removeValue(forKey: id)
            journaling("that job \(id) is forgotten") { try $0.forgetJob(id) }
            log("job \(id) forgotten (the last \(configuration.finishedJobsKept) finished jobs are kept); its index.json is in \(job.outputLocation)", job: id)
        }
    }

    /// Why a request names a job the coordinator does not hold, and where to look instead.
    public func noJob(_ id: String) -> String {
        "no job \(id) on this coordinator (it keeps open jobs and the last \(configuration.finishedJobsKept) that finished; "
            + "a finished job's outcome stays in index.json in its output directory)"
    }
}
