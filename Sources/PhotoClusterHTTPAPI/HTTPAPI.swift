import Foundation
import Hummingbird
import OpenAPIHummingbird
import OpenAPIRuntime
import PhotoClusterCoordinator

/// The public HTTP API, `/v1/…`, described by openapi/openapi.yaml (served at /v1/openapi.json),
/// on the coordinator's HTTP listener beside the dashboard. Its handlers speak the client
/// protocol to the coordinator's loop (`CoordinatorNode.request`), so a token does exactly what
/// a client key of its role does.
public enum HTTPAPI {
    /// Adds the API's routes to `router`, behind their own guard (`APIGuard`): bearer tokens,
    /// rate limits, body limits, problems for every error.
    public static func add(to router: Router<BasicRequestContext>, coordinator: CoordinatorNode, access: APIAccess) throws {
        // Before the group, so it also sees the router's own answer for a path or method it has no route for.
        router.add(middleware: APINotFound())
        let group = router.group()
        group.add(middleware: APIGuard(access: access, coordinator: coordinator, limiter: RateLimiter(access.limits)))
        try ClusterAPI(coordinator: coordinator).registerHandlers(on: group)
    }
}

/// Who may use the API, and how much.
public struct APIAccess: Sendable {
    /// The dashboard's token, which acts as the operator (every job, as an admin key); nil when
    /// the dashboard has none.
    public var operatorToken: String?
    public var limits: APILimits

    public init(operatorToken: String?, limits: APILimits = APILimits()) {
        self.operatorToken = operatorToken
        self.limits = limits
    }
}

/// Per-token limits (`--http-rate`, `--http-job-rate`): over them a request is answered 429 with
/// `Retry-After`, so one client's loop of requests cannot take the coordinator from the others.
public struct APILimits: Sendable, Equatable {
    /// Requests a second each token may make, on average, and in a burst.
    public var requestsPerSecond: Double
    public var burst: Double
    /// Jobs each token may submit a minute.
    public var jobsPerMinute: Double
    /// The largest request body (a submit's manifest).
    public var maxBodyBytes: Int

    public init(requestsPerSecond: Double = 50, burst: Double = 100, jobsPerMinute: Double = 60, maxBodyBytes: Int = 256 << 20) {
        self.requestsPerSecond = requestsPerSecond
        self.burst = burst
        self.jobsPerMinute = jobsPerMinute
        self.maxBodyBytes = maxBodyBytes
    }
}
