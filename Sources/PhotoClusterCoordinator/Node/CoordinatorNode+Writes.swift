import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterScheduling

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

    /// A result the core asks to be written; it leaves when the turn ends (`submitQueuedWrites`).
    func queueWrite(_ result: Photocluster_V1_PhotoResult, from worker: String, encoded: Data, targets: [(index: UInt32, name: String)]) {
        let write = ResultWrite(result: result, worker: worker, encoded: encoded, directory: outputDirectories[result.jobID], targets: targets)
        guard write.directory != nil else {
            let reason = outputProblems[write.result.jobID] ?? "the job's output directory is not open"
            var failed = write
            failed.errors = write.targets.map { DurableFile.Failure(path: $0.name, reason: reason) }
            return resultsWritten([failed])
        }
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
                    // A coordinator whose lease lapsed (frozen while these waited) writes no file.
                    let leads = self?.leadsNow ?? false
                    write.errors = write.targets.map { target in
                        guard leads else { return LeadershipLost() }
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

    /// Back on the loop thread: the files are in place (or could not be written); the core
    /// settles their photos, and asks for the files of photos settled meanwhile to be removed
    /// (`removeOutputs`).
    private func resultsWritten(_ writes: [ResultWrite]) {
        for write in writes { recordWriteSpan(write) }
        tellCore(.resultsWritten(writes.map {
            WrittenResult(result: $0.result, worker: $0.worker, targets: $0.targets, errors: $0.errors, destination: $0.directory)
        }))
    }

    /// `.removeOutputs`: on a writer thread (the directory may be slow).
    func removeOutputs(_ names: [String], of write: WrittenResult) {
        guard let directory = write.destination as? JobDirectory else { return }
        writers.submit { for name in names { directory.remove(named: name) } }
    }
}
