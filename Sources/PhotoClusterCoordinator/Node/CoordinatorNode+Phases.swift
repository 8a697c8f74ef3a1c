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
        journaling("job \(jobID)") { try $0.recordJobFinished(finished) }
        let p = finished.progress
        log("job \(jobID) \(finished.phase == .cancelled ? "cancelled" : "finished"): \(p.succeeded) ok, \(p.failed) failed, \(p.cancelled) cancelled in \(String(format: "%.2f", finished.elapsed)) s", job: jobID)
        publish(jobID, .phase(finished.phase))
        publish(jobID, .finished(finished.summary(includePhotos: true)))
        for worker in workers.keys { sendToWorker(worker, .jobClosed(.with { $0.jobID = jobID })) }
        // Nothing more is written there (a result still being written holds the directory).
        outputDirectories.removeValue(forKey: jobID)
        finishedOrder.append(jobID)
        forgetOldFinishedJobs()
    }

    /// `index.json` in the output directory: every photo's state, reason and output path.
    private func writeIndex(of job: Job) {
        struct Entry: Encodable {
            let index: UInt32
            let name: String
            let url: String
            let state: String
            let stage: String?
            let reason: String?
            let path: String?
            let width: UInt32?
            let height: UInt32?
        }
        struct Index: Encodable {
            let job: String
            let label: String
            let photos: [Entry]
        }
        let index = Index(job: job.id, label: job.label, photos: job.photos.map { photo in
            Entry(
                index: photo.index, name: photo.name, url: photo.url, state: photo.state.rawValue,
                stage: photo.failedStage.isEmpty ? nil : photo.failedStage,
                reason: photo.reason.isEmpty ? nil : photo.reason,
                path: photo.state == .done ? photo.outputPath : nil,
                width: photo.state == .done ? photo.width : nil,
                height: photo.state == .done ? photo.height : nil)
        })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(index) else { return }
        do {
            guard let directory = outputDirectories[job.id] else {
                throw DurableFile.Failure(path: job.outputDirectory.appendingPathComponent("index.json").path, reason: outputProblems[job.id] ?? "the directory is not open")
            }
            try directory.write(data, named: "index.json", tag: job.id)
        } catch {
            log(.error, "job \(job.id): \(error)", job: job.id)
        }
    }

    /// Temporary files this job may have left (a write cut short); finished files stay. Called
    /// once every photo is settled, so no write of this job is still running.
    private func removeTemporaryFiles(of job: Job) {
        guard let directory = outputDirectories[job.id] else { return }
        for name in directory.names() where name.hasPrefix(".") && name.hasSuffix(".tmp") && name.contains(".\(job.id)-") {
            directory.remove(named: name)
        }
    }
}
