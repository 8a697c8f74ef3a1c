import Foundation
import PhotoClusterTestSupport
import XCTest

/// The dashboard of a coordinator with CURVE keys: its token, its host names, POSTs only from
/// its own pages, and a strict Content-Security-Policy; /metrics and /healthz as Prometheus
/// and probes expect them.
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
        let viewport = cluster.dashboard + "/api/jobs/\(job)/viewport"
        let scroll = try JSONSerialization.data(withJSONObject: ["visibleStart": 2, "visibleEnd": 3, "scrolling": true])

        // Without the token: refused, and told where it is.
        let anonymous = try PlainHTTPClient.send("GET", cluster.dashboard + "/api/overview")
        XCTAssertEqual(anonymous.status, 401)
        XCTAssertTrue(problem(anonymous).contains("(the token is in \(tokenFile.path))"), problem(anonymous))
        XCTAssertEqual(try PlainHTTPClient.send("GET", cluster.dashboard + "/api/overview", headers: ["Authorization": "Bearer wrong"]).status, 401)
        XCTAssertEqual(try PlainHTTPClient.send("GET", cluster.dashboard + "/").status, 401)
        XCTAssertEqual(try PlainHTTPClient.send("POST", viewport, headers: ["Content-Type": "application/json", "Origin": cluster.dashboard], body: scroll).status, 401)

        // A name that is not the dashboard's (DNS rebinding), even with the token.
        let rebound = try PlainHTTPClient.send("GET", cluster.dashboard + "/api/overview", headers: bearer.merging(["Host": "evil.example:80"]) { $1 })
        XCTAssertEqual(rebound.status, 421)
        XCTAssertTrue(problem(rebound).contains("this dashboard does not answer to the host \"evil.example:80\""), problem(rebound))

        // A cross-origin POST, and one that is not JSON, even with the token: nothing changes.
        let crossSite = try PlainHTTPClient.send("POST", viewport, headers: bearer.merging(["Content-Type": "application/json", "Origin": "http://evil.example"]) { $1 }, body: scroll)
        XCTAssertEqual(crossSite.status, 403)
        XCTAssertTrue(problem(crossSite).contains("a POST must come from this dashboard's own pages (Origin \(cluster.dashboard)), got Origin http://evil.example"),
                      problem(crossSite))
        let form = try PlainHTTPClient.send("POST", viewport, headers: bearer.merging(["Content-Type": "text/plain", "Origin": cluster.dashboard]) { $1 }, body: scroll)
        XCTAssertEqual(form.status, 403)
        XCTAssertTrue(problem(form).contains("a POST must send JSON (Content-Type: application/json)"), problem(form))
        let unchanged = try JSONSerialization.jsonObject(with: PlainHTTPClient.send("GET", cluster.dashboard + "/api/jobs/\(job)", headers: bearer).body) as? [String: Any]
        XCTAssertEqual((unchanged?["viewport"] as? [String: Any])?["scrolling"] as? Bool, false, "\(String(describing: unchanged))")

        // With the token, from the dashboard's own origin.
        let overview = try PlainHTTPClient.send("GET", cluster.dashboard + "/api/overview", headers: bearer)
        XCTAssertEqual(overview.status, 200)
        XCTAssertTrue(String(decoding: overview.body, as: UTF8.self).contains(job), "the operator sees every job")
        XCTAssertEqual(try PlainHTTPClient.send("POST", viewport, headers: bearer.merging(["Content-Type": "application/json", "Origin": cluster.dashboard]) { $1 }, body: scroll).status, 200)

        // The printed URL: the token goes into a cookie scripts cannot read, and the address loses it.
        let opened = try PlainHTTPClient.send("GET", cluster.dashboard + "/jobs/\(job)?token=\(token)")
        XCTAssertEqual(opened.status, 303)
        XCTAssertEqual(opened.headers["location"], "/jobs/\(job)")
        let cookie = try XCTUnwrap(opened.headers["set-cookie"])
        XCTAssertTrue(cookie.hasPrefix("photocluster_token=\(token);") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), cookie)
        let page = try PlainHTTPClient.send("GET", cluster.dashboard + "/jobs/\(job)", headers: ["Cookie": "photocluster_token=\(token)"])
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

    /// The `error` of a refusal's JSON body.
    private func problem(_ response: PlainHTTPClient.Response) -> String {
        ((try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any])?["error"] as? String ?? String(decoding: response.body, as: UTF8.self)
    }
}
