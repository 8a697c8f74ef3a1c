import Foundation
import Hummingbird
import PhotoClusterCore

/// Who may use the dashboard, and from where.
public struct DashboardAccess: Sendable {
    /// The bearer token every request needs (but `/metrics` and `/healthz`); nil: none, as when the
    /// coordinator runs without CURVE.
    public var token: String?
    /// Host names the dashboard answers to (the `Host` header without its port): anything else is
    /// refused, so a page whose name was made to point here (DNS rebinding) cannot read it.
    public var hostNames: Set<String>
    /// Where the token can be read, for the refusal's advice.
    public var tokenLocation: String
    /// Whether a token is an admin's HTTP API token (`cluster token create --role admin`), which
    /// opens the dashboard as the dashboard's own token does.
    public var isAdminToken: @Sendable (String) -> Bool

    public init(token: String?, hostNames: Set<String>, tokenLocation: String = "the URL the coordinator printed at start",
                isAdminToken: @escaping @Sendable (String) -> Bool = { _ in false }) {
        self.token = token
        self.hostNames = hostNames
        self.tokenLocation = tokenLocation
        self.isAdminToken = isAdminToken
    }

    /// Whether `given` opens the dashboard.
    func admits(_ given: String) -> Bool {
        guard let token else { return true }
        return BearerToken.matches(given, token) || isAdminToken(given)
    }

    /// The names a listener on `host` answers to: the address itself, the loopback names when it
    /// listens on loopback or on every address, and `extra` (`--http-host`).
    public static func hostNames(listeningOn host: String, extra: [String]) -> Set<String> {
        let loopback: Set<String> = ["localhost", "127.0.0.1", "::1"]
        var names: Set<String> = [host.lowercased()]
        if loopback.contains(host) || host == "0.0.0.0" || host == "::" || host.hasPrefix("127.") { names.formUnion(loopback) }
        return names.union(extra.map { $0.lowercased() })
    }
}

/// Guards the dashboard and its API: the `Host` check, the token (a bearer header, or the
/// cookie a page's first visit with `?token=` sets), JSON and a matching `Origin` for every POST
/// (`DashboardAccess.refusal(of:)`), and a strict Content-Security-Policy on every answer.
/// `/metrics` and `/healthz` are left as Prometheus and probes expect: no token and any host; they
/// show counts and ids, never URLs, paths or keys, and who reaches them is chosen by where they listen.
struct DashboardGuard<Context: RequestContext>: RouterMiddleware {
    static var cookieName: String { DashboardAccess.cookieName }
    /// Scripts and styles from the dashboard only, no inline script, nothing framed or posted
    /// elsewhere; inline style attributes (bar widths, legend colours) are the one allowance.
    static var contentSecurityPolicy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    let access: DashboardAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await check(request, context: context, next: next)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.init("Referrer-Policy")!] = "no-referrer"
        return response
    }

    private func check(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        // The HTTP API (/v1) guards itself: bearer tokens as they come, and the dashboard's cookie
        // with the same host and origin checks as here (PhotoClusterHTTPAPI's APIGuard).
        if path == "/metrics" || path == "/healthz" || path.hasPrefix("/v1/") { return try await next(request, context) }
        if let refusal = access.refusal(of: request) {
            return DashboardRoutes.problem(refusal.status, refusal.reason)
        }
        guard access.token != nil else { return try await next(request, context) }
        if BearerToken.parse(authorization: request.headers[.authorization]).map(access.admits) == true || request.cookies[Self.cookieName].map({ access.admits($0.value) }) == true {
            return try await next(request, context)
        }
        // A page opened from the printed URL: keep the token in a cookie the page's scripts cannot
        // read and other sites' pages never send, and show the address without it.
        if request.method == .get, let given = request.uri.queryParameters["token"].map(String.init), access.admits(given), !path.hasPrefix("/api/") {
            var response = Response(status: .seeOther, headers: [.location: path, .cacheControl: "no-store"])
            response.setCookie(Cookie(name: Self.cookieName, value: given, path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
        return DashboardRoutes.problem(.unauthorized,
            "this dashboard needs its token: open the URL with ?token= that the coordinator printed at start, or send the header "
                + "`Authorization: Bearer TOKEN` (the token is in \(access.tokenLocation)); an admin's API token from `cluster token create --role admin` opens it too")
    }
}
