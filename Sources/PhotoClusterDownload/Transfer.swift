import CCurlShim

typealias DownloadCompletion = @Sendable (Result<DownloadedBody, DownloadError>) -> Void
typealias RequestCompletion = @Sendable (Result<CurlResponse, DownloadError>) -> Void

/// Swift owner of one C `pc_transfer`, and of the policy its callbacks consult.
///
/// `@unchecked Sendable` invariant: the stored properties never change; the C struct is driven
/// only by the engine thread, except its cancel flag, which is atomic. The struct is freed when
/// the last owner (engine or `DownloadHandle`) lets go, so a late `cancel()` never touches
/// freed memory.
final class Transfer: @unchecked Sendable {
    /// What the caller hears when the transfer ends: a download's body (a status of 400 or more
    /// is an error), or a request's whole response, whatever its status.
    enum Completion {
        case download(DownloadCompletion)
        /// `keeping`: the response headers the caller wants; `limits`: its timeouts and body cap.
        case request(keeping: [String], limits: DownloadLimits, RequestCompletion)
    }

    let url: String
    let raw: OpaquePointer
    let completion: Completion
    /// Kept alive as long as the C transfer, which points into it; nil for requests, which have none.
    let policy: PolicyTable?

    init(url: String, raw: OpaquePointer, policy: PolicyTable?, completion: Completion) {
        self.url = url
        self.raw = raw
        self.policy = policy
        self.completion = completion
    }

    deinit { pc_transfer_free(raw) }

    /// Sets the cancel flag; true only for the first call.
    func requestCancel() -> Bool { pc_transfer_request_cancel(raw) == 1 }

    /// Hands the finished transfer's result to its caller.
    func complete(limits: DownloadLimits) {
        switch completion {
        case .download(let done): done(result(limits: limits))
        case .request(let names, let own, let done): done(response(keeping: names, limits: own))
        }
    }
}
