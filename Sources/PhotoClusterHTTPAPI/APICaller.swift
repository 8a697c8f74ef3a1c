import PhotoClusterCoordinator

/// Who made the request being handled: set by `APIGuard` for the handlers it calls.
struct APICaller: Sendable {
    /// What the coordinator takes the request as.
    let requester: LocalRequester
    /// For rate limits and logs: the token's name, "operator", or "anonymous" without CURVE.
    let name: String

    @TaskLocal static var current = APICaller(requester: .key(nil), name: "anonymous")
}
