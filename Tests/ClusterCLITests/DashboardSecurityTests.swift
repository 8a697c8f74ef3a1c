import Foundation
import PhotoClusterTestSupport
import XCTest

/// The dashboard of a coordinator with CURVE keys: its token, its host names, and a strict
/// Content-Security-Policy; the HTTP API, which its pages call with the dashboard's cookie, takes
/// that cookie only under the dashboard's names and a POST only from its own pages, while bearer
/// requests are checked as always; an admin's API token in the cookie works, a client's does not,
/// and the pages' viewport changes count against the token's rate; /metrics and /healthz as
/// Prometheus and probes expect them.
final class DashboardSecurityTests: XCTestCase {
    func testTheDashboardNeedsItsTokenItsOwnHostAndItsOwnOrigin() throws {
        let cluster = try SecuredCluster(label: "dashboard-token", roles: ["alice": "client"])
        defer { cluster.stop() }
        let job = try cluster.openJob(as: "alice", count: 6)
        let tokenFile = cluster.state.appendingPathComponent("dashboard.token")
        let token = try String(contentsOf: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(token.count, 64)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: tokenFile.path)[.posixPermissions] as? Int, 0o600)
        XCTAssertTrue(cluster.coordinator.stderrSoFar.contains("dashboard at \(cluster.dashboard)/?token=\(token)"), cluster.coordinator.stderrSoFar)
        let bearer = ["Authorization": "Bearer \(token)"]
        let cookie = ["Cookie": "photocluster_token=\(token)"]
        let viewport = cluster.dashboard + "/v1/jobs/\(job)/viewport"
        let scroll = try JSONSerialization.data(withJSONObject: ["visibleStart": 2, "visibleEnd": 3, "scrolling": true])
        let fromPage = ["Content-Type": "application/json", "Origin": cluster.dashboard]

        // Without the token: refused, and told where it is.
        let anonymous = try PlainHTTPClient.send("GET", cluster.dashboard + "/api/overview")
        XCTAssertEqual(anonymous.status, 401)
        XCTAssertTrue(problem(anonymous).contains("(the token is in \(tokenFile.path))"), problem(anonymous))
        XCTAssertEqual(try PlainHTTPClient.send("GET", cluster.dashboard + "/api/overview", headers: ["Authorization": "Bearer wrong"]).status, 401)
        XCTAssertEqual(try PlainHTTPClient.send("GET", cluster.dashboard + "/").status, 401)
        XCTAssertEqual(try PlainHTTPClient.send("POST", viewport, headers: fromPage, body: scroll).status, 401)

        // A name that is not the dashboard's (DNS rebinding), even with the token.
        let rebound = try PlainHTTPClient.send("GET", cluster.dashboard + "/api/overview", headers: bearer.merging(["Host": "evil.example:80"]) { $1 })
        XCTAssertEqual(rebound.status, 421)
        XCTAssertTrue(problem(rebound).contains("this dashboard does not answer to the host \"evil.example:80\""), problem(rebound))

        // The cookie under a name that is not the dashboard's, on the API too.
        let reboundAPI = try PlainHTTPClient.send("GET", cluster.dashboard + "/v1/jobs/\(job)", headers: cookie.merging(["Host": "evil.example:80"]) { $1 })
        XCTAssertEqual(reboundAPI.status, 421)
        XCTAssertEqual(reboundAPI.headers["content-type"], "application/problem+json")
        XCTAssertTrue(detail(reboundAPI).contains("this dashboard does not answer to the host \"evil.example:80\""), detail(reboundAPI))

        // With the cookie, a cross-origin POST, and one that is not JSON: refused, and nothing changes.
        let crossSite = try PlainHTTPClient.send("POST", viewport, headers: cookie.merging(["Content-Type": "application/json", "Origin": "http://evil.example"]) { $1 }, body: scroll)
        XCTAssertEqual(crossSite.status, 403)
        XCTAssertEqual(crossSite.headers["content-type"], "application/problem+json")
        XCTAssertTrue(detail(crossSite).contains("a POST must come from this dashboard's own pages (Origin \(cluster.dashboard)), got Origin http://evil.example"),
                      detail(crossSite))
        let noOrigin = try PlainHTTPClient.send("POST", viewport, headers: cookie.merging(["Content-Type": "application/json"]) { $1 }, body: scroll)
        XCTAssertEqual(noOrigin.status, 403)
        XCTAssertTrue(detail(noOrigin).contains("got no Origin header"), detail(noOrigin))
        let form = try PlainHTTPClient.send("POST", viewport, headers: cookie.merging(["Content-Type": "text/plain", "Origin": cluster.dashboard]) { $1 }, body: scroll)
        XCTAssertEqual(form.status, 403)
        XCTAssertTrue(detail(form).contains("a POST must send JSON (Content-Type: application/json)"), detail(form))
        XCTAssertEqual(try scrolling(of: job, in: cluster, token: token), false, "no refused POST changed the viewport")

        // With the cookie, from the dashboard's own origin: the operator, on anyone's job.
        let fromDashboard = try PlainHTTPClient.send("POST", viewport, headers: cookie.merging(fromPage) { $1 }, body: scroll)
        XCTAssertEqual(fromDashboard.status, 200, detail(fromDashboard))
        XCTAssertEqual((try JSONSerialization.jsonObject(with: fromDashboard.body) as? [String: Any])?["id"] as? String, job, "the API's Job")
        XCTAssertEqual(try scrolling(of: job, in: cluster, token: token), true)
        XCTAssertEqual(try PlainHTTPClient.send("GET", cluster.dashboard + "/v1/jobs/\(job)", headers: ["Cookie": "photocluster_token=wrong"]).status, 401)

        // A bearer request is checked as always: no host or origin matters (no browser adds the header).
        let settle = try JSONSerialization.data(withJSONObject: ["visibleStart": 2, "visibleEnd": 3, "scrolling": false])
        let scripted = try PlainHTTPClient.send("POST", viewport, headers: bearer.merging(["Content-Type": "application/json", "Host": "api.example"]) { $1 }, body: settle)
        XCTAssertEqual(scripted.status, 200, detail(scripted))
        XCTAssertEqual(try scrolling(of: job, in: cluster, token: token), false)

        // The dashboard's own JSON with the token.
        let overview = try PlainHTTPClient.send("GET", cluster.dashboard + "/api/overview", headers: bearer)
        XCTAssertEqual(overview.status, 200)
        XCTAssertTrue(String(decoding: overview.body, as: UTF8.self).contains(job), "the operator sees every job")

        // The printed URL: the token goes into a cookie scripts cannot read, and the address loses it.
        let opened = try PlainHTTPClient.send("GET", cluster.dashboard + "/jobs/\(job)?token=\(token)")
        XCTAssertEqual(opened.status, 303)
        XCTAssertEqual(opened.headers["location"], "/jobs/\(job)")
        let setCookie = try XCTUnwrap(opened.headers["set-cookie"])
        XCTAssertTrue(setCookie.hasPrefix("photocluster_token=\(token);") && setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), setCookie)
        let page = try PlainHTTPClient.send("GET", cluster.dashboard + "/jobs/\(job)", headers: cookie)
        XCTAssertEqual(page.status, 200)
        let policy = try XCTUnwrap(page.headers["content-security-policy"])
        XCTAssertTrue(policy.contains("default-src 'none'") && policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"), policy)

        // As Prometheus and probes expect: no token, any host name.
        let scrape = try PlainHTTPClient.send("GET", cluster.dashboard + "/metrics", headers: ["Host": "10.0.0.7:8080"])
        XCTAssertEqual(scrape.status, 200)
        XCTAssertTrue(String(decoding: scrape.body, as: UTF8.self).contains("photocluster_jobs"))
        XCTAssertEqual(try PlainHTTPClient.send("GET", cluster.dashboard + "/healthz").status, 200)
        XCTAssertEqual(try PlainHTTPClient.send("GET", cluster.metrics + "/metrics").status, 200)
    }

    /// An admin's API token in the cookie opens the API as it opens the dashboard, a client's does
    /// not; the page's viewport changes count against the token's rate (`--http-rate`), whether
    /// the token came in the cookie or a bearer header, and one over it is refused (429) unapplied.
    func testTheCookieTakesAnAdminTokenAndCountsAgainstItsRate() throws {
        let tokens = Repository.temporaryDirectory("dashboard-api-tokens").appendingPathComponent("authorized")
        defer { try? FileManager.default.removeItem(at: tokens.deletingLastPathComponent()) }
        func make(_ name: String, _ role: String) throws -> String {
            let made = try CommandRunner.run(["token", "create", "--keys", tokens.path, "--name", name, "--role", role])
            XCTAssertEqual(made.status, 0, made.stderr)
            return made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let ops = try make("ops", "admin"), site = try make("site", "client")
        // Half a request a second, in bursts of one: the second request of a token within 2 s is refused.
        let cluster = try SecuredCluster(label: "dashboard-rate", roles: ["alice": "client"],
                                         coordinatorArguments: ["--authorized-keys", tokens.path, "--http-rate", "0.5"])
        defer { cluster.stop() }
        let job = try cluster.openJob(as: "alice", count: 6)
        let token = try String(contentsOf: cluster.state.appendingPathComponent("dashboard.token"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let viewport = cluster.dashboard + "/v1/jobs/\(job)/viewport"
        func post(_ start: Int, cookie value: String) throws -> PlainHTTPClient.Response {
            let body = try JSONSerialization.data(withJSONObject: ["visibleStart": start, "visibleEnd": start, "scrolling": false])
            return try PlainHTTPClient.send("POST", viewport, headers: ["Cookie": "photocluster_token=\(value)", "Content-Type": "application/json", "Origin": cluster.dashboard], body: body)
        }

        let asAdmin = try post(1, cookie: ops)
        XCTAssertEqual(asAdmin.status, 200, "an admin acts on alice's job: \(detail(asAdmin))")
        let asClient = try PlainHTTPClient.send("GET", cluster.dashboard + "/v1/jobs", headers: ["Cookie": "photocluster_token=\(site)"])
        XCTAssertEqual(asClient.status, 401)
        XCTAssertTrue(detail(asClient).contains("holds neither the dashboard's token nor an admin's API token"), detail(asClient))
        XCTAssertEqual(try PlainHTTPClient.send("GET", cluster.dashboard + "/v1/jobs", headers: ["Authorization": "Bearer \(site)"]).status, 200,
                       "the client's token works as a bearer token")

        XCTAssertEqual(try post(2, cookie: token).status, 200)
        let over = try post(4, cookie: token)
        XCTAssertEqual(over.status, 429, detail(over))
        XCTAssertEqual(over.headers["content-type"], "application/problem+json")
        XCTAssertEqual(over.headers["retry-after"], "2")
        XCTAssertTrue(detail(over).contains("too many requests: 0.5 a second (--http-rate) for operator"), detail(over))
        let job2 = try XCTUnwrap(summary(of: job, in: cluster, token: token)["viewport"] as? [String: Any])
        XCTAssertEqual(job2["visibleStart"] as? Int, 2, "the refused change was not applied: \(job2)")
        let asBearer = try PlainHTTPClient.send("GET", cluster.dashboard + "/v1/jobs/\(job)", headers: ["Authorization": "Bearer \(token)"])
        XCTAssertEqual(asBearer.status, 429, "the cookie and the bearer header share the token's rate")
    }

    /// A job as the dashboard's own JSON shows it (not rate limited), read with the dashboard's token.
    private func summary(of job: String, in cluster: SecuredCluster, token: String) throws -> [String: Any] {
        let response = try PlainHTTPClient.send("GET", cluster.dashboard + "/api/jobs/\(job)", headers: ["Authorization": "Bearer \(token)"])
        XCTAssertEqual(response.status, 200)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    private func scrolling(of job: String, in cluster: SecuredCluster, token: String) throws -> Bool? {
        (try summary(of: job, in: cluster, token: token)["viewport"] as? [String: Any])?["scrolling"] as? Bool
    }

    /// The `detail` of an API problem.
    private func detail(_ response: PlainHTTPClient.Response) -> String {
        ((try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any])?["detail"] as? String ?? String(decoding: response.body, as: UTF8.self)
    }

    /// The `error` of a refusal's JSON body.
    private func problem(_ response: PlainHTTPClient.Response) -> String {
        ((try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any])?["error"] as? String ?? String(decoding: response.body, as: UTF8.self)
    }
}
