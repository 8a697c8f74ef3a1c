import CCurlShim

typealias DownloadCompletion = @Sendable (Result<DownloadedBody, DownloadError>) -> Void

/// Swift owner of one C `pc_transfer`, and of the policy its callbacks consult.
///
/// `@unchecked Sendable` invariant: the stored properties never change; the C struct is driven
/// only by the engine thread, except its cancel flag, which is atomic. The struct is freed when
/// the last owner (engine or `DownloadHandle`) lets go, so a late `cancel()` never touches
/// freed memory.
final class Transfer: @unchecked Sendable {
    let url: String
    let raw: OpaquePointer
    let completion: DownloadCompletion
    /// Kept alive as long as the C transfer, which points into it.
    let policy: PolicyTable

    init(url: String, raw: OpaquePointer, policy: PolicyTable, completion: @escaping DownloadCompletion) {
        self.url = url
        self.raw = raw
        self.policy = policy
        self.completion = completion
    }

    deinit { pc_transfer_free(raw) }

    /// Sets the cancel flag; true only for the first call.
    func requestCancel() -> Bool { pc_transfer_request_cancel(raw) == 1 }
}
