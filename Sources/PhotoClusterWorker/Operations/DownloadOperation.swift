import Foundation
import PhotoClusterCore
import PhotoClusterDownload

/// Fetches the photo's bytes with libcurl, sharing a transfer with other photos of the same URL.
/// A cancel leaves the shared transfer, which aborts when nobody else wants it.
final class DownloadOperation: AsyncOperation, @unchecked Sendable {
    private let work: PhotoWork
    private let downloads: DownloadCoalescer
    private let cache: StageCache
    private let report: StageReporter
    /// Set once the transfer starts; read by `cancel()` from another thread.
    private let subscription = LockedBox<DownloadCoalescer.Subscription?>(nil)

    init(work: PhotoWork, downloads: DownloadCoalescer, cache: StageCache, report: StageReporter) {
        self.work = work
        self.downloads = downloads
        self.cache = cache
        self.report = report
        super.init()
        name = "download \(work.graph.name)"
    }

    override func execute() {
        guard work.shouldContinue else { return finish() }
        let started = Date()
        let url = work.graph.url
        let fetch = downloads.fetch(url) { [self] result in
            // The duration the worker reports for the stage, and the task stream's bar, are one reading.
            var measured: TimeInterval?
            switch result {
            case .success(let body):
                cache.put(.downloaded(url: url), .bytes(body.data))
                work.update {
                    $0.downloaded = body.data
                    $0.lastFinished = .download
                }
                measured = Date().timeIntervalSince(started)
                report.stageFinished(work, .download, bytes: UInt64(body.data.count), pixels: 0, seconds: measured!)
            case .failure(let error) where error.kind == .cancelled:
                break
            case .failure(let error):
                work.fail(stage: .download, name: "download", reason: error.message, transient: error.isTransient)
            }
            work.recordSpan(.download, name: "download", started: started, seconds: measured)
            finish()
        }
        subscription.withLock { $0 = fetch }
        if isCancelled { fetch.cancel() }
    }

    override func cancel() {
        super.cancel()
        subscription.current?.cancel()
    }
}
