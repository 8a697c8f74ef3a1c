import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterProto
import PhotoClusterStorage

/// Puts the encoded photo where the job keeps its outputs (an S3 prefix, a shared directory),
/// under the photo's name and the names of its copies, so the coordinator hears only where it is.
///
/// Runs on the job's I/O queue: an upload waits on the network, a shared directory's write on
/// the file server. An S3 object appears whole or not at all (a multipart upload is completed or
/// aborted); a file is written to a temporary name, flushed and renamed, and its directory flushed.
final class StoreOperation: AsyncOperation, @unchecked Sendable {
    private let work: PhotoWork
    private let place: OutputPlace
    private let store: OutputStore
    private let report: StageReporter
    /// The upload under way, for `cancel()` from another thread.
    private let upload = LockedBox<Task<Void, Never>?>(nil)

    init(work: PhotoWork, place: OutputPlace, store: OutputStore, report: StageReporter) {
        self.work = work
        self.place = place
        self.store = store
        self.report = report
        super.init()
        name = "store \(work.graph.name)"
    }

    override func execute() {
        guard !isCancelled, !work.isCancelled, case .encoded(let data, let format, _, _)? = work.read({ $0.outcome }) else {
            return finish()
        }
        let fileNames = work.graph.outputStems.map { OutputNaming.fileName(stem: $0, format: format.fileExtension) }
        let started = Date()
        let done: @Sendable (Result<[String], StoreFailure>) -> Void = { [self] result in
            var measured: TimeInterval?
            switch result {
            case .success(let locations):
                measured = Date().timeIntervalSince(started)
                report.stageFinished(work, .write, bytes: UInt64(data.count * locations.count), pixels: 0, seconds: measured!)
                work.update { $0.storedAt = locations }
            case .failure(let failure) where failure.isCancelled:
                break   // the output stays unstored: the graph ends cancelled
            case .failure(let failure):
                work.update { $0.outcome = .failed(stage: .write, stageName: failure.stageName, reason: failure.reason, transient: failure.isTransient) }
            }
            work.recordSpan(.write, name: "write", started: started, seconds: measured)
            finish()
        }
        let tag = "\(work.graph.jobID)-\(work.graph.attempt)"
        switch place {
        case .shared(let directory):
            // A blocking write on this queue's thread: it is an I/O queue, not the CPU's.
            done(store.write(data, as: fileNames, in: directory, tag: tag))
        case .s3(let prefix):
            let task = Task { done(await store.upload(data, as: fileNames, under: prefix, format: format)) }
            upload.withLock { $0 = task }
            if isCancelled { task.cancel() }
        }
    }

    override func cancel() {
        super.cancel()
        upload.current?.cancel()
    }
}
