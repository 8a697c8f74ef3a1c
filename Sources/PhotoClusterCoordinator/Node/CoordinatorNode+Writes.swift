import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// A result on its way to its files: the photo's own and its followers'.
struct ResultWrite {
    let result: Photocluster_V1_PhotoResult
    let worker: String
    let encoded: Data
    /// The job's open output directory; nil when it could not be opened again after a restart
    /// (every target then fails with `outputProblems`' reason).
    let directory: JobDirectory?
    /// File names in `directory`.
    let targets: [(index: UInt32, name: String)]
    /// Filled in by the writer thread: each target's error, if it could not be written.
    var errors: [Error?] = []
    /// Filled in by the writer thread: when it began writing, and for how long (the task stream).
    var started = Date.distantPast
    var seconds: TimeInterval = 0
}

/// Results are written off the loop thread (see `writers`): those of one turn are handed over
/// together, a piece per writer thread, and come back the same way, so the loop pays one
/// hand-over and one answer for a piece, not one for each photo.
extension CoordinatorNode {
    static let writesPerPiece = 32

    /// Marks the targets as being written; they leave when the turn ends (`submitQueuedWrites`).
    func queueWrite(_ write: ResultWrite) {
        guard write.directory != nil else {
            let reason = outputProblems[write.result.jobID] ?? "the job's output directory is not open"
            var failed = write
            failed.errors = write.targets.map { DurableFile.Failure(path: $0.name, reason: reason) }
            return resultsWritten([failed])
        }
        let now = MonotonicInstant.now
        for target in write.targets { writing[PhotoRef(job: write.result.jobID, index: target.index)] = now }
        // Counted under the photo's own ref, so a write given up (`expireStuckWrites`) stops
        // counting then, not a second time when it comes back.
        bytesByWrite[PhotoRef(job: write.result.jobID, index: write.result.photoIndex)] = write.encoded.count
        bytesBeingWritten += write.encoded.count
        writesToSubmit.append(write)
    }

    /// Hands the turn's results to the writer threads (the loop calls it as each turn ends).
    func submitQueuedWrites() {
        guard !writesToSubmit.isEmpty else { return }
        // A piece holds one job's results: a directory that stops answering holds up only its own.
        let byJob = Dictionary(grouping: writesToSubmit) { $0.result.jobID }
        writesToSubmit.removeAll(keepingCapacity: true)
        for queued in byJob.values {
          for start in stride(from: 0, to: queued.count, by: Self.writesPerPiece) {
            let piece = Array(queued[start..<min(start + Self.writesPerPiece, queued.count)])
            writers.submit { [weak self] in
                let written = piece.map { write -> ResultWrite in
                    var write = write
                    write.started = Date()
                    let tag = "\(write.result.jobID)-\(write.result.attempt)"
                    write.errors = write.targets.map { target in
                        do {
                            try write.directory?.write(write.encoded, named: target.name, tag: tag)
                            return nil
                        } catch {
                            return error
                        }
                    }
                    write.seconds = Date().timeIntervalSince(write.started)
                    return write
                }
                self?.loop.post { self?.resultsWritten(written) }
            }
          }
        }
    }

    /// Back on the loop thread: the files are in place (or could not be written).
    private func resultsWritten(_ writes: [ResultWrite]) {
        let wasBacklogged = writesBacklogged
        defer { if wasBacklogged && !writesBacklogged { dispatch() } }
        // Told per job once the piece is through: the statuses, then the counts once. A client
        // that hears of every photo is promised the counts after each (`EventDetail`): its job's
        // photos are told one by one.
        var ends: [String: [(index: UInt32, worker: String?)]] = [:]
        defer { for (jobID, settled) in ends { photosFinished(jobID, settled) } }
        for write in writes {
            if let bytes = bytesByWrite.removeValue(forKey: PhotoRef(job: write.result.jobID, index: write.result.photoIndex)) {
                bytesBeingWritten -= bytes
            }
            let result = write.result
            recordWriteSpan(write)
            for (target, error) in zip(write.targets, write.errors) {
                writing.removeValue(forKey: PhotoRef(job: result.jobID, index: target.index))
                guard let photo = jobs[result.jobID]?.photo(target.index), !photo.isSettled else {
                    // Cancelled for good, or given up (`expireStuckWrites`), while its file was
                    // written: leave no file that looks finished (removed on a writer thread:
                    // the directory may be slow).
                    if error == nil, let directory = write.directory { writers.submit { directory.remove(named: target.name) } }
                    continue
                }
                if let error {
                    jobs[result.jobID]?.markFailed(target.index, stage: "write", reason: "\(error)")
                } else {
                    jobs[result.jobID]?.markDone(target.index, format: result.format, width: result.width, height: result.height)
                }
                if subscribers[result.jobID]?.everyPhoto.isEmpty == false {
                    photoFinished(result.jobID, target.index, worker: write.worker)
                } else {
                    ends[result.jobID, default: []].append((target.index, write.worker))
                }
            }
        }
    }
}
