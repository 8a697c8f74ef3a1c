import CCurlShim
import Foundation

/// Downloads over HTTP(S) with libcurl's multi interface on one dedicated thread per engine,
/// named "pc-download".
///
/// `@unchecked Sendable` invariant: all stored properties are immutable after init; mutable
/// state lives in `inbox` (lock-protected) and in the `EngineLoop` (engine thread only).
public final class DownloadEngine: @unchecked Sendable {
    let limits: DownloadLimits
    let inbox: Inbox
    private let thread: Thread
    private let stopped = DispatchGroup()   // left when the engine thread has exited

    /// Name of every engine thread, as `Thread.current.name` reports it.
    static let threadName = "pc-download"

    public init(limits: DownloadLimits = DownloadLimits()) {
        pc_global_init()
        guard let multi = pc_multi_new() else { fatalError("curl_multi_init failed") }
        let inbox = Inbox(multi: multi)
        let loop = EngineLoop(multi: multi, inbox: inbox, limits: limits)
        let stopped = self.stopped
        stopped.enter()
        // The thread holds the loop, not the engine, so dropping the engine shuts it down.
        // It names itself only once start() has returned: on Linux an earlier rename is lost.
        let started = DispatchSemaphore(value: 0)
        thread = Thread {
            started.wait()
            Thread.current.name = DownloadEngine.threadName   // at most 15 bytes (pthread)
            loop.run()
            stopped.leave()
        }
        self.limits = limits
        self.inbox = inbox
        thread.start()
        started.signal()
    }

    deinit { shutdown() }

    /// Starts a transfer; `completion` is called exactly once, on the engine's thread, with the
    /// body or the error (`.cancelled` after `cancel()`). After `shutdown()` it is called at
    /// once, on the caller's thread, with `.cancelled`. Completions run one at a time and hold
    /// up the engine while they run: keep them short.
    public func start(
        url: String, completion: @escaping @Sendable (Result<DownloadedBody, DownloadError>) -> Void
    ) -> DownloadHandle {
        let refusal: DownloadError
        if let parts = URLParts(url) {
            if limits.normalizedSchemes.contains(parts.scheme) {
                switch makeTransfer(url: url, completion: completion) {
                case .success(let transfer):
                    if inbox.post(.start(transfer)) { return DownloadHandle(transfer: transfer, inbox: inbox) }
                    pc_transfer_finish_unstarted(transfer.raw)
                    transfer.complete(limits: limits)
                    return DownloadHandle(transfer: nil, inbox: nil)
                case .failure(let error):
                    refusal = error
                }
            } else {
                refusal = DownloadError(
                    kind: .unsupportedScheme, message: DownloadError.schemeMessage(parts.scheme, limits: limits), url: url)
            }
        } else {
            refusal = DownloadError(kind: .invalidURL, message: "invalid URL: '\(url)'", url: url)
        }
        if !inbox.post(.reject({ completion(.failure(refusal)) })) {
            completion(.failure(DownloadError(kind: .cancelled, message: "cancelled", url: url)))
        }
        return DownloadHandle(transfer: nil, inbox: nil)
    }

    /// Transfers started and not yet completed.
    public var activeTransfers: Int { inbox.unfinishedCount }

    /// Aborts what runs (completing each as `.cancelled`) and waits for the engine thread to end.
    /// Idempotent. Called from a completion it only requests the stop, as it cannot wait for itself.
    public func shutdown() {
        inbox.close()
        if Thread.current === thread { return }
        stopped.wait()
    }

    private func makeTransfer(url: String, completion: @escaping DownloadCompletion) -> Result<Transfer, DownloadError> {
        let protocols = limits.normalizedSchemes.joined(separator: ",")
        var reason = [CChar](repeating: 0, count: 256)
        let raw: OpaquePointer? = protocols.withCString { protocolsC in
            "PhotoCluster/0.1".withCString { agentC in
                var options = pc_options(
                    connect_timeout_ms: DownloadLimits.milliseconds(limits.connectTimeout),
                    total_timeout_ms: DownloadLimits.milliseconds(limits.totalTimeout),
                    max_bytes: Int64(max(0, limits.maxBytes)),
                    max_redirects: limits.maxRedirects,
                    protocols: protocolsC,
                    user_agent: agentC,
                    policy: limits.policy.table.raw)
                return pc_transfer_new(url, &options, &reason, reason.count)
            }
        }
        guard let raw else {
            let message = reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return .failure(DownloadError(kind: .other, message: message, url: url))
        }
        return .success(Transfer(url: url, raw: raw, policy: limits.policy.table, completion: .download(completion)))
    }
}
