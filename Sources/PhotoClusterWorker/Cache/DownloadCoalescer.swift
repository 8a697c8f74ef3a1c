import Foundation
import PhotoClusterCore
import PhotoClusterDownload

/// Shares one transfer among every photo that wants the same URL at the same time.
///
/// The transfer is cancelled only when its last subscriber leaves (as in an image pipeline's
/// shared tasks). The table of running transfers is behind the lock; completions fan out on the
/// thread that ends the transfer (the download engine's, or an S3 read's task).
///
/// Ownership: the table owns each `Shared`, and a `Shared` its transfer's handle. The transfer
/// holds its completion until it is freed, so the completion refers to its `Shared` weakly: a
/// strong reference made a cycle (shared → handle → transfer → completion → shared) that kept
/// every finished transfer, libcurl's handle with it, for the life of the worker.
final class DownloadCoalescer: @unchecked Sendable {
    typealias Completion = @Sendable (Result<DownloadedBody, DownloadError>) -> Void

    private final class Shared {
        var handle: CancellableTransfer?
        var subscribers: [UInt64: Completion] = [:]
    }

    /// One subscription; `cancel()` leaves the shared transfer.
    final class Subscription: @unchecked Sendable {
        fileprivate let id: UInt64
        fileprivate let url: String
        fileprivate weak var owner: DownloadCoalescer?

        fileprivate init(id: UInt64, url: String, owner: DownloadCoalescer) {
            self.id = id
            self.url = url
            self.owner = owner
        }

        func cancel() { owner?.leave(url: url, id: id) }
    }

    private let sources: PhotoSource
    private let table = LockedBox((running: [String: Shared](), nextID: UInt64(0)))

    init(sources: PhotoSource) {
        self.sources = sources
    }

    func fetch(_ url: String, completion: @escaping Completion) -> Subscription {
        let (subscription, shared, isNew) = table.withLock { t -> (Subscription, Shared, Bool) in
            t.nextID += 1
            let subscription = Subscription(id: t.nextID, url: url, owner: self)
            if let shared = t.running[url] {
                shared.subscribers[t.nextID] = completion
                return (subscription, shared, false)
            }
            let shared = Shared()
            shared.subscribers[t.nextID] = completion
            t.running[url] = shared
            return (subscription, shared, true)
        }
        guard isNew else { return subscription }
        let handle = sources.start(url) { [weak self, weak shared] result in
            guard let shared else { return }  // every subscriber left: each has heard already
            self?.finish(url: url, shared: shared, result: result)
        }
        table.withLock { _ in shared.handle = handle }
        return subscription
    }

    private func finish(url: String, shared: Shared, result: Result<DownloadedBody, DownloadError>) {
        let subscribers = table.withLock { t -> [Completion] in
            if t.running[url] === shared { t.running.removeValue(forKey: url) }
            defer { shared.subscribers.removeAll() }
            return Array(shared.subscribers.values)
        }
        for subscriber in subscribers { subscriber(result) }
    }

    private func leave(url: String, id: UInt64) {
        let (completion, handleToCancel) = table.withLock { t -> (Completion?, CancellableTransfer?) in
            guard let shared = t.running[url], let completion = shared.subscribers.removeValue(forKey: id) else { return (nil, nil) }
            if shared.subscribers.isEmpty {
                t.running.removeValue(forKey: url)
                return (completion, shared.handle)
            }
            return (completion, nil)
        }
        handleToCancel?.cancel()
        // The leaver hears of its cancellation at once; the others keep the transfer.
        completion?(.failure(DownloadCoalescer.cancelled(url)))
    }

    static func cancelled(_ url: String) -> DownloadError {
        DownloadError.cancelledByCaller(url: url)
    }
}
