import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterScheduling

/// The end of a job: will finish (write `index.json`) → did finish, or, for a cancelled job,
/// its cancel handlers (remove temporary files, record what was cancelled) → cancelled. Either
/// way no temporary file of the job stays: a coordinator killed while writing a result leaves
/// one, which the coordinator that finishes the job (restarted from the journal) removes. For a
/// job whose workers store its outputs, the index goes to the same place (see `IndexStore`).
///
/// The files are written on a writer thread, never on the loop: a write to a file system that
/// stopped answering (a hung network mount) would stop every job. A job whose index has not
/// been written within `writeTimeout` ends without it, with an error in the log.
extension CoordinatorNode {
    func finish(_ jobID: String) {
        guard let job = jobs[jobID], !job.isFinished, finishing[jobID] == nil else { return }
        let phase: Photocluster_V1_JobPhase = job.cancelledWhole ? .cancelled : .didFinish
        if phase == .didFinish {
            jobs[jobID]?.enter(.willFinish, at: Date())
            publish(jobID, .phase(.willFinish))
        }
        finishing[jobID] = FinishingJob(phase: phase, since: .now)
        let snapshot = jobs[jobID]!.snapshot()
        if let place = job.place {
            // The workers stored the outputs; the index goes to the same place (see `IndexStore`).
            indexStore.store(snapshot, in: place) { [weak self] problem in
                self?.loop.post { self?.indexWritten(jobID, problem: problem.map { "index.json not stored: \($0)" }) }
            }
            return
        }
        let directory = outputDirectories[jobID]
        let problem = outputProblems[jobID]
        writers.submit { [weak self] in
            if let directory { Self.removeTemporaryFiles(of: snapshot, in: directory) }
            let failure = Self.writeIndex(of: snapshot, in: directory, problem: problem)
            self?.loop.post { self?.indexWritten(jobID, problem: failure) }
        }
    }

    /// Back on the loop: the index is written (or could not be, or took too long): the job ends.
    private func indexWritten(_ jobID: String, problem: String?) {
        guard let finishing = finishing.removeValue(forKey: jobID), jobs[jobID] != nil else { return }
        if let problem { log(.error, "job \(jobID): \(problem)", job: jobID) }
        jobs[jobID]?.enter(finishing.phase, at: Date())
        guard let finished = jobs[jobID] else { return }
        journaling("job \(jobID)") { try $0.recordJobFinished(finished) }
        let p = finished.progress
        log("job \(jobID) \(finished.phase == .cancelled ? "cancelled" : "finished"): \(p.succeeded) ok, \(p.failed) failed, \(p.cancelled) cancelled in \(String(format: "%.2f", finished.elapsed(at: Date()))) s", job: jobID)
        publish(jobID, .phase(finished.phase))
        sendFinishedSummary(of: jobID, to: subscribers[jobID]?.all ?? [])
        tellCore(.jobEnded(jobID))
        // Nothing more is written there (a result still being written holds the directory).
        outputDirectories.removeValue(forKey: jobID)
        finishedOrder.append(jobID)
        forgetOldFinishedJobs()
    }

    /// Ends the jobs whose index has not been written within `writeTimeout`.
    func finishJobsWithStuckIndexes(now: MonotonicInstant = .now) {
        let limit = configuration.writeTimeout
        for (jobID, entry) in finishing where now.seconds(since: entry.since) > limit {
            let directory = jobs[jobID]?.outputLocation ?? "?"
            indexWritten(jobID, problem: "index.json was not written in \(directory) within \(Int(limit)) s (is its file system stuck, a hung network mount?); the job ends without it")
        }
    }

    /// `index.json` in the output directory (see `JobIndex`); returns why it could not be
    /// written (`problem`: why the directory is not open). On a writer thread.
    private static func writeIndex(of job: Job, in directory: JobDirectory?, problem: String?) -> String? {
        do {
            guard let directory else {
                throw DurableFile.Failure(path: job.outputDirectory.appendingPathComponent("index.json").path, reason: problem ?? "the directory is not open")
            }
            try JobIndex.write(job, in: directory)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Temporary files this job may have left (a write cut short); finished files stay. Called
    /// once every photo is settled, so no write of this job is still running (but one given up
    /// for taking too long; see `expireStuckWrites`). On a writer thread.
    private static func removeTemporaryFiles(of job: Job, in directory: JobDirectory) {
        // Hidden names only: a directory of a million outputs is not listed into memory.
        for name in directory.names(hiddenOnly: true) where name.hasSuffix(".tmp") && name.contains(".\(job.id)-") {
            directory.remove(named: name)
        }
    }
}

/// A job whose index is being written: the phase it ends in, and since when.
struct FinishingJob {
    let phase: Photocluster_V1_JobPhase
    let since: MonotonicInstant
}
