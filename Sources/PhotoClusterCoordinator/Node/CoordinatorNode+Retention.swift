import Foundation

/// A coordinator runs for months: it keeps every open job and the last finished ones
/// (`finishedJobsKept`, for `cluster status`, `cluster watch` and the dashboard) and forgets the
/// rest, in memory and in the journal. A forgotten job's outcome stays where its user looks for
/// it: the photos and `index.json` in its output directory.
extension CoordinatorNode {
    /// Loop thread (or `start`, before the loop runs). `finishedOrder` holds the finished jobs,
    /// the first to finish first (as the journal recorded them, for those restored).
    func forgetOldFinishedJobs() {
        let excess = finishedOrder.count - configuration.finishedJobsKept
        guard excess > 0 else { return }
        let forgotten = finishedOrder.prefix(excess)
        finishedOrder.removeFirst(excess)
        let known = forgotten.compactMap { jobs[$0] }
        tellCore(.jobsForgotten(Array(forgotten)))
        for job in known {
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
