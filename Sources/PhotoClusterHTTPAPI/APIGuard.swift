import Foundation
import Hummingbird
import OpenAPIRuntime
import PhotoClusterCoordinator
import PhotoClusterCore

/// Guards the API's routes: who is asking (a bearer token: an API token from the authorized
/// keys, or the dashboard's, which is the operator's; or the dashboard's cookie, from one of its
/// pages only: `DashboardCookie`), how often (`RateLimiter`, per token however it came), how much
/// (the body), and that every error leaves as a problem. The OpenAPI document needs no token.
///
/// Without CURVE the coordinator checks no one on its client socket, and the API is as open:
/// a request without a token acts as a client without a key does there.
struct APIGuard<Context: RequestContext>: RouterMiddleware {
    let access: APIAccess
    let coordinator: CoordinatorNode
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = await answer(request, context: context, next: next)
        coordinator.countHTTPRequest(status: Int(response.status.code))
        response.headers[.xContentTypeOptions] = "nosniff"
        // The generated code writes header values percent-encoded (`%2Fv1%2Fjobs…`).
        if let location = response.headers[.location], location.hasPrefix("%2F") {
            response.headers[.location] = location.removingPercentEncoding
        }
        return response
    }

    private func answer(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async -> Response {
        // The document as written (the operation would answer it re-encoded): no token needed.
        if request.uri.path == "/v1/openapi.json" && request.method == .get {
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-cache"],
                            body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
        let caller: APICaller
        switch authenticate(request) {
        case .success(let who): caller = who
        case .failure(let problem): return problem.httpResponse
        }
        let submitting = request.method == .post && request.uri.path == "/v1/jobs"
        if let wait = limiter.admit(caller.name, submitting: submitting) {
            let what = submitting ? "jobs: \(access.limits.jobsPerMinute.formatted()) a minute (--http-job-rate)"
                : "requests: \(access.limits.requestsPerSecond.formatted()) a second (--http-rate)"
            return APIProblem(429, "too many \(what) for \(caller.name); try again after Retry-After",
                              retryAfter: max(1, Int(wait.rounded(.up)))).httpResponse
        }
        var request = request
        if request.method == .post {
            do {
                let body = try await request.collectBody(upTo: access.limits.maxBodyBytes)
                // A cancel's body is optional: none means `{}` (the generated code would try to decode nothing as JSON).
                if body.readableBytes == 0 && request.uri.path.hasSuffix("/cancel") {
                    var head = request.head
                    head.headerFields[.contentType] = "application/json"
                    request = Request(head: head, body: .init(buffer: ByteBuffer(string: "{}")))
                }
            } catch {
                return APIProblem(413, "the request body is larger than \(access.limits.maxBodyBytes >> 20) MiB (twice the coordinator's --max-manifest-mb): split the manifest into several jobs").httpResponse
            }
        }
        return await APICaller.$current.withValue(caller) { await run(request, context, next) }
    }

    /// Runs the operation; what it throws (a body that does not decode, a parameter of the wrong
    /// type) becomes a 400 problem instead of Hummingbird's bare 500.
    private func run(_ request: Request, _ context: Context, _ next: (Request, Context) async throws -> Response) async -> Response {
        do {
            return try await next(request, context)
        } catch let error as ServerError {
            return APIProblem(400, "the request does not match the API (see /v1/openapi.json): \(RequestMismatch.reason(error))").httpResponse
        } catch let error as HTTPError {
            return APIProblem(Int(error.status.code), error.body ?? error.status.reasonPhrase).httpResponse
        } catch {
            return APIProblem(500, "\(error)").httpResponse
        }
    }

    /// Who is asking: a bearer header as it comes; else the dashboard's cookie, from one of the
    /// dashboard's pages only (`DashboardCookie.refusal`).
    private func authenticate(_ request: Request) -> Result<APICaller, APIProblem> {
        guard coordinator.checksKeys || access.operatorToken != nil else {
            return .success(APICaller(requester: .key(nil), name: "anonymous"))
        }
        if let given = BearerToken.parse(authorization: request.headers[.authorization]) {
            return caller(holding: given).mapError { _ in
                APIProblem(401, "the token is not one this coordinator knows (never made, or revoked): make one with `cluster token create` and reload the authorized keys")
            }
        }
        if let cookie = access.dashboardCookie, let given = request.cookies[cookie.name]?.value {
            if let refused = cookie.refusal(request) { return .failure(APIProblem(refused.status, refused.reason)) }
            return caller(holding: given, admitsClients: false).mapError { _ in
                APIProblem(401, "the dashboard's cookie \(cookie.name) holds neither the dashboard's token nor an admin's API token (a coordinator "
                    + "started anew makes a new token, a revoked token opens nothing): open the URL with ?token= that the coordinator printed again")
            }
        }
        return .failure(APIProblem(401, "this API needs a token: send `Authorization: Bearer TOKEN` with a token from `cluster token create`"))
    }

    /// The caller a token stands for: the dashboard's token is the operator; an API token, its
    /// holder (only an admin's when `admitsClients` is false, as the dashboard opens only for those).
    private func caller(holding given: String, admitsClients: Bool = true) -> Result<APICaller, UnknownToken> {
        if let token = access.operatorToken, BearerToken.matches(given, token) {
            return .success(APICaller(requester: .operator, name: "operator"))
        }
        if let holder = coordinator.tokenHolder(of: given), admitsClients || holder.isAdmin {
            return .success(APICaller(requester: .key(holder.principal), name: holder.name))
        }
        return .failure(UnknownToken())
    }

    private struct UnknownToken: Error {}
}
