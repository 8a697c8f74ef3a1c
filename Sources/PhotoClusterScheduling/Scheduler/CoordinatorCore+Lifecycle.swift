import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// A job's life, decided here and nowhere else: opened (journaled by the shell) → in progress →
/// every photo settled → finishing (will finish, its index being written; a job cancelled whole
/// skips "will finish") → did finish or cancelled, closed on the workers → kept among the last
/// `finishedJobsKept` finished → forgotten. A coordinator restarted from its journal (or a
/// standby that takes over) picks each job up where it stopped, and finishes one that stopped
/// between its last photo and its end. The shell only carries out the I/O: it writes the index
/// (`.writeIndex`, answered by `.indexWritten`), tells the clients (`.jobPhase`, `.jobFinished`)
/// and drops what it keeps of a forgotten job (`.jobsForgotten`).
extension CoordinatorCore {
    /// A new job, journaled by the shell: it starts.
    func start(_ job: Job) {
        open(job)
        job.enter(.inProgress, at: wallClock)
        emit(.journalJobState(job.id))
        emit(.jobPhase(job: job.id, .inProgress))
        if job.allSettled { beginFinishing(job.id) }
        dispatch()
    }

    /// The jobs of a journal, as `Job.restore` made them, and the ids of the finished ones, the
    /// first to finish first. An open job's epoch (one past the journal's) is journaled before
    /// anything is sent at it, so a coordinator that follows this one goes past it too.
    func restore(_ restored: [Job], finishOrder: [String]) {
        for job in restored {
            open(job)
            if !job.isFinished { emit(.journalJobState(job.id)) }
        }
        finishedOrder = finishOrder.filter { jobs[$0]?.isFinished == true }
        forgetOldFinishedJobs()
        // Stopped between its last photo and its end: no photo's end will finish it now.
        for id in openJobs where jobs[id]?.allSettled == true { beginFinishing(id) }
        dispatch()
    }

    /// Every photo of the job has settled: it will finish once its index is written.
    func beginFinishing(_ jobID: String) {
        guard let job = jobs[jobID], !job.isFinished, finishing[jobID] == nil else { return }
        let phase: Photocluster_V1_JobPhase = job.cancelledWhole ? .cancelled : .didFinish
        if phase == .didFinish {
            job.enter(.willFinish, at: wallClock)
            emit(.jobPhase(job: jobID, .willFinish))
        }
        finishing[jobID] = FinishingJob(phase: phase, since: now)
        emit(.writeIndex(jobID))
    }

    /// The job's index is written, could not be (`problem`), or was given up: the job ends.
    func indexWritten(_ jobID: String, problem: String?) {
        guard let finishing = finishing.removeValue(forKey: jobID), let job = jobs[jobID] else { return }
        job.enter(finishing.phase, at: wallClock)
        emit(.jobFinished(job, problem: problem))
        openJobs.removeAll { $0 == jobID }
        for worker in workers.keys { sendToWorker(worker, .jobClosed(.with { $0.jobID = jobID })) }
        finishedOrder.append(jobID)
        forgetOldFinishedJobs()
    }

    /// Ends the jobs whose index has not been written within `limit` seconds (a hung file system).
    func finishJobsWithStuckIndexes(after limit: TimeInterval) {
        for (jobID, entry) in finishing.sorted(by: { $0.key < $1.key }) where now.seconds(since: entry.since) > limit {
            let location = jobs[jobID]?.outputLocation ?? "?"
            indexWritten(jobID, problem: "index.json was not written in \(location) within \(Int(limit)) s (is its file system stuck, a hung network mount?); the job ends without it")
        }
    }

    /// Keeps the last `finishedJobsKept` finished jobs (for status, watch and the dashboard) and
    /// forgets the rest; a forgotten job's outcome stays in its output directory's index.json.
    func forgetOldFinishedJobs() {
        let excess = finishedOrder.count - settings.finishedJobsKept
        guard excess > 0 else { return }
        let forgotten = Array(finishedOrder.prefix(excess))
        finishedOrder.removeFirst(excess)
        emit(.jobsForgotten(forgotten.compactMap { jobs[$0] }))
        forget(forgotten)
    }
}

/// A job whose index is being written: the phase it ends in, and since when.
package struct FinishingJob {
    package let phase: Photocluster_V1_JobPhase
    package let since: MonotonicInstant
}
