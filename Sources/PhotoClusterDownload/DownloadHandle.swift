/// Lets the caller cancel one transfer.
///
/// `@unchecked Sendable` invariant: immutable after init; `Transfer`'s cancel flag is atomic and
/// `Inbox` is lock-protected.
public final class DownloadHandle: @unchecked Sendable {
    private let transfer: Transfer?   // nil when the request was refused before it started
    private let inbox: Inbox?

    init(transfer: Transfer?, inbox: Inbox?) {
        self.transfer = transfer
        self.inbox = inbox
    }

    /// Aborts the transfer; its completion then reports `.cancelled` (unless it had already
    /// completed). Idempotent, callable from any thread.
    public func cancel() {
        guard let transfer, let inbox, transfer.requestCancel() else { return }
        // The flag alone stops curl at its next callback; the command removes the transfer even
        // when the server sends nothing. After shutdown the post is refused: nothing is running.
        _ = inbox.post(.cancel(transfer))
    }
}
