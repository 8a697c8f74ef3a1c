import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// The end of a job: will finish (write `index.json`) → did finish, or, for a cancelled job,
/// its cancel handlers (remove temporary files, record what was cancelled) → cancelled. Either
/// way no temporary file of the job stays: a coordinator killed while writing a result leaves
/// one, which the coordinator that finishes the job (restarted from the journal) removes.
extension CoordinatorNode {
    func finish(_ jobID: String) {
        guard let job = jobs[jobID] else { return }
        if job.cancelledWhole {
            removeTemporaryFiles(of: job)
            writeIndex(of: job)
            jobs[jobID]?.enter(.cancelled)
        } else {
            jobs[jobID]?.enter(.willFinish)
            publish(jobID, .phase(.willFinish))
            removeTemporaryFiles(of: job)
            writeIndex(of: job)
            jobs[jobID]?.enter(.didFinish)
        }
        guard let finished = jobs[jobID] else { return }
        openJobs.removeAll { $0 == jobID }
        journaling("job \(jobID)") { try $0.recordJobFinished(finished) }
        let p = finished.progress
        log("job \(jobID) \(finished.phase == .cancelled ? "cancelled" : "finished"): \(p.succeeded) ok, \(p.failed) failed, \(p.cancelled) cancelled in \(String(format: "%.2f", finished.elapsed)) s", job: jobID)
        publish(jobID, .phase(finished.phase))
        sendFinishedSummary(of: jobID, to: subscribers[jobID]?.all ?? [])
        for worker in workers.keys { sendToWorker(worker, .jobClosed(.with { $0.jobID = jobID })) }
        // Nothing more is written there (a result still being written holds the directory).
        outputDirectories.removeValue(forKey: jobID)
        finishedOrder.append(jobID)
        forgetOldFinishedJobs()
    }

    /// `index.json` in the output directory (see `JobIndex`).
    private func writeIndex(of job: Job) {
        do {
            guard let directory = outputDirectories[job.id] else {
                throw DurableFile.Failure(path: job.outputDirectory.appendingPathComponent("index.json").path, reason: outputProblems[job.id] ?? "the directory is not open")
            }
            try JobIndex.write(job, in: directory)
        } catch {
            log(.error, "job \(job.id): \(error)", job: job.id)
        }
    }

    /// Temporary files this job may have left (a write cut short); finished files stay. Called
    /// once every photo is settled, so no write of this job is still running.
    private func removeTemporaryFiles(of job: Job) {
        guard let directory = outputDirectories[job.id] else { return }
        // Hidden names only: a directory of a million outputs is not listed into memory.
        for name in directory.names(hiddenOnly: true) where name.hasSuffix(".tmp") && name.contains(".\(job.id)-") {
            directory.remove(named: name)
        }
    }
}
