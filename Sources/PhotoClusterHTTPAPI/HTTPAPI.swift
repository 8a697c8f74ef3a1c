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
    /// Adds the API's routes to `router`, behind their own guard (`APIGuard`): bearer tokens or
    /// the dashboard's cookie, rate limits, body limits, problems for every error.
    public static func add(to router: Router<BasicRequestContext>, coordinator: CoordinatorNode, access: APIAccess) throws {
        // Before the group, so it also sees the router's own answer for a path or method it has no route for.
        router.add(middleware: APINotFound())
        let group = router.group()
        group.add(middleware: APIGuard(access: access, coordinator: coordinator, limiter: RateLimiter(access.limits)))
        try ClusterAPI(coordinator: coordinator).registerHandlers(on: group, configuration: configuration)
    }

    /// Paths in answers as written (`"/srv/out"`, not the `"\/srv\/out"` JSON also allows), as
    /// the problems and event streams already write them.
    static let configuration = Configuration(jsonEncodingOptions: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
}

/// Who may use the API, and how much.
public struct APIAccess: Sendable {
    /// The dashboard's token, which acts as the operator (every job, as an admin key); nil when
    /// the dashboard has none.
    public var operatorToken: String?
    public var limits: APILimits
    /// The dashboard's cookie, which its pages send to /v1 instead of a bearer header; nil: the
    /// API takes no cookie.
    public var dashboardCookie: DashboardCookie?

    public init(operatorToken: String?, limits: APILimits = APILimits(), dashboardCookie: DashboardCookie? = nil) {
        self.operatorToken = operatorToken
        self.limits = limits
        self.dashboardCookie = dashboardCookie
    }
}

/// The cookie the dashboard sets from its `?token=` URL: it holds the dashboard's token (the
/// operator) or an admin's API token. A browser sends it with every request to the dashboard's
/// address, whichever page made it, so a request it authenticates must also pass the dashboard's
/// own checks (its host names against DNS rebinding; JSON from its own origin for a POST). A
/// request with a bearer header is never checked so: no browser adds that header by itself.
public struct DashboardCookie: Sendable {
    public var name: String
    /// Why a request that carries the cookie is refused though its token may be good: the status
    /// and the reason; nil when it may go on.
    public var refusal: @Sendable (Request) -> (status: Int, reason: String)?

    public init(name: String, refusal: @escaping @Sendable (Request) -> (status: Int, reason: String)?) {
        self.name = name
        self.refusal = refusal
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
