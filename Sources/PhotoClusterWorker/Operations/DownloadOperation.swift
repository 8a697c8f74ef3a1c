import Foundation
import PhotoClusterCore
import PhotoClusterDownload

/// Fetches the photo's bytes with libcurl. A cancel aborts the running transfer.
final class DownloadOperation: AsyncOperation, @unchecked Sendable {
    private let work: PhotoWork
    private let engine: DownloadEngine
    private let report: StageReporter
    /// Set once the transfer starts; read by `cancel()` from another thread.
    private let handle = LockedBox<DownloadHandle?>(nil)

    init(work: PhotoWork, engine: DownloadEngine, report: StageReporter) {
        self.work = work
        self.engine = engine
        self.report = report
        super.init()
        name = "download \(work.graph.name)"
    }

    override func execute() {
        guard work.shouldContinue else { return finish() }
        let started = Date()
        let transfer = engine.start(url: work.graph.url) { [self] result in
            switch result {
            case .success(let body):
                work.update {
                    $0.downloaded = body.data
                    $0.lastFinished = .download
                }
                report.stageFinished(work, .download, bytes: UInt64(body.data.count), pixels: 0, seconds: Date().timeIntervalSince(started))
            case .failure(let error) where error.kind == .cancelled:
                break
            case .failure(let error):
                work.fail(stage: .download, name: "download", reason: error.message, transient: error.isTransient)
            }
            finish()
        }
        handle.withLock { $0 = transfer }
        if isCancelled { transfer.cancel() }
    }

    override func cancel() {
        super.cancel()
        handle.current?.cancel()
    }
}
