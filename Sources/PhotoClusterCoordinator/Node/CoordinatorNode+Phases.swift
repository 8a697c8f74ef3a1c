import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterScheduling

/// What the node does for a job's end, as the core decides it (`CoordinatorCore+Lifecycle`):
/// it writes `index.json` and removes the temporary files the job's writes may have left (a
/// coordinator killed while writing a result leaves one, which the coordinator that finishes the
/// job, restarted from the journal, removes), then tells the core; once the core ends the job,
/// it journals the end and tells the clients. For a job whose workers store its outputs, the
/// index goes to the same place (see `IndexStore`).
///
/// The files are written on a writer thread, never on the loop: a write to a file system that
/// stopped answering (a hung network mount) would stop every job. The core ends a job whose
/// index has not been written within `writeTimeout` without it.
extension CoordinatorNode {
    /// `.writeIndex`: answered with `.indexWritten` on the loop.
    func writeIndex(of jobID: String) {
        guard let job = jobs[jobID] else { return }
        let snapshot = job.snapshot()
        if let place = job.place {
            indexStore.store(snapshot, in: place) { [weak self] problem in
                self?.loop.post { self?.tellCore(.indexWritten(jobID, problem: problem.map { "index.json not stored: \($0)" })) }
            }
            return
        }
        let directory = outputDirectories[jobID]
        let problem = outputProblems[jobID]
        writers.submit { [weak self] in
            if let directory { Self.removeTemporaryFiles(of: snapshot, in: directory) }
            let failure = Self.writeIndex(of: snapshot, in: directory, problem: problem)
            self?.loop.post { self?.tellCore(.indexWritten(jobID, problem: failure)) }
        }
    }

    /// `.jobFinished`: the job ended; it is journaled and its clients hear of it (the core may
    /// have forgotten it already: retention in the same event).
    func jobFinished(_ finished: Job, problem: String?) {
        let jobID = finished.id
        if let problem { log(.error, "job \(jobID): \(problem)", job: jobID) }
        journaling("job \(jobID)") { try $0.recordJobFinished(finished) }
        let p = finished.progress
        log("job \(jobID) \(finished.phase == .cancelled ? "cancelled" : "finished"): \(p.succeeded) ok, \(p.failed) failed, \(p.cancelled) cancelled in \(String(format: "%.2f", finished.elapsed(at: Date()))) s", job: jobID)
        publish(jobID, .phase(finished.phase))
        sendFinishedSummary(of: finished, to: subscribers[jobID]?.all ?? [])
        // Nothing more is written there (a result still being written holds the directory).
        outputDirectories.removeValue(forKey: jobID)
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
