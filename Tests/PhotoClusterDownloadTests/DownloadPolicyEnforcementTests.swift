import Foundation
import LoopbackHTTP
import PhotoClusterDownload
import XCTest

/// The policy as libcurl enforces it, for first requests and redirects, against the loopback server.
final class DownloadPolicyEnforcementTests: XCTestCase {
    private let denyLoopback = ["127.0.0.0/8", "::1/128"]

    /// Loopback allowed, as the test servers listen there: the lists decide.
    private func limits(allow: [String] = [], deny: [String] = []) throws -> DownloadLimits {
        DownloadLimits(policy: try DownloadPolicy(allow: allow, deny: deny, allowLoopback: true))
    }

    func testDeniedAddressIsRefusedBeforeAnyRequest() throws {
        let server = try makeServer(["/photo.jpg": HTTPResponse(body: pattern(10))])
        defer { server.stop() }
        let error = expectError(fetch(server.baseURL + "/photo.jpg", limits: try limits(deny: denyLoopback)))
        XCTAssertEqual(error?.kind, .policy)
        XCTAssertEqual(error?.message, "refused by the download policy: 127.0.0.1 is in the denied range 127.0.0.0/8")
        XCTAssertEqual(error?.isTransient, false)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testNameResolvingToDeniedAddressIsRefused() throws {
        let server = try makeServer(["/photo.jpg": HTTPResponse(body: pattern(10))])
        defer { server.stop() }
        let error = expectError(fetch("http://localhost:\(server.port)/photo.jpg", limits: try limits(deny: denyLoopback)))
        XCTAssertEqual(error?.kind, .policy)
        XCTAssertTrue(
            error?.message.hasPrefix("refused by the download policy: host localhost resolved to ") ?? false,
            error?.message ?? "")
        XCTAssertEqual(server.requestCount, 0)
    }

    func testOtherSpellingsOfADeniedAddressAreRefused() throws {
        let server = try makeServer([:])
        defer { server.stop() }
        let denied = try limits(deny: denyLoopback)
        for host in ["2130706433", "0x7f.1", "127.1", "[::ffff:127.0.0.1]", "[::1]"] {
            let error = expectError(fetch("http://\(host):\(server.port)/x", limits: denied))
            XCTAssertEqual(error?.kind, .policy, host)
        }
        // 0.0.0.0 reaches this host too; the default refusals cover it, loopback allowed or not.
        XCTAssertEqual(expectError(fetch("http://0.0.0.0:\(server.port)/x", limits: .loopback))?.kind, .policy)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testOtherSpellingsOfADeniedNameAreRefused() throws {
        let denied = try limits(deny: ["*.blocked.test"])
        for host in ["A.Blocked.TEST", "a.blocked.test.", "a%2Eblocked.test"] {
            let error = expectError(fetch("http://\(host):1/x", limits: denied))
            XCTAssertEqual(error?.kind, .policy, "\(host): \(error?.message ?? "")")
        }
    }

    func testRedirectToDeniedAddressIsRefused() throws {
        let server = try makeServer([:])
        defer { server.stop() }
        let target = "http://127.0.0.2:\(server.port)/x"
        let redirecting = try makeServer(["/a": .redirect(to: target)])
        defer { redirecting.stop() }
        // Nothing listens on 127.0.0.2: a connection attempt would fail as .connection instead.
        let error = expectError(fetch(redirecting.baseURL + "/a", limits: try limits(deny: ["127.0.0.2/32"])))
        XCTAssertEqual(error?.kind, .policy)
        XCTAssertEqual(
            error?.message,
            "refused by the download policy after a redirect: 127.0.0.2 is in the denied range 127.0.0.2/32")
        XCTAssertEqual(error?.url, redirecting.baseURL + "/a")
        XCTAssertEqual(redirecting.requests(forPath: "/a"), 1)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testRedirectToMetadataIsRefusedAtOnce() throws {
        for target in ["http://169.254.169.254/latest/meta-data/", "http://[::ffff:169.254.169.254]/latest/meta-data/"] {
            let server = try makeServer(["/a": .redirect(to: target)])
            defer { server.stop() }
            let began = Date()
            let error = expectError(fetch(server.baseURL + "/a", limits: .loopback))
            XCTAssertLessThan(Date().timeIntervalSince(began), 1, target)
            XCTAssertEqual(error?.kind, .policy, target)
            XCTAssertEqual(
                error?.message,
                "download refused after a redirect: 169.254.169.254 is a cloud metadata address; "
                    + "the worker refuses cloud metadata addresses, which reach its own host or its cloud's services",
                target)
        }
    }

    func testRedirectToDeniedNameIsRefusedBeforeResolving() throws {
        let server = try makeServer(["/a": .redirect(to: "http://a.blocked.test:1/x")])
        defer { server.stop() }
        let began = Date()
        let error = expectError(fetch(server.baseURL + "/a", limits: try limits(deny: ["*.blocked.test"])))
        XCTAssertLessThan(Date().timeIntervalSince(began), 1)
        XCTAssertEqual(error?.kind, .policy)
        XCTAssertEqual(
            error?.message,
            "refused by the download policy after a redirect: host a.blocked.test matches the denied name *.blocked.test")
    }

    func testDeniedNameIsRefusedBeforeResolving() throws {
        let server = try makeServer([:])
        defer { server.stop() }
        let began = Date()
        let error = expectError(fetch("http://a.blocked.test:\(server.port)/", limits: try limits(deny: ["*.blocked.test"])))
        XCTAssertLessThan(Date().timeIntervalSince(began), 1)
        XCTAssertEqual(error?.kind, .policy)
        XCTAssertEqual(error?.message, "refused by the download policy: host a.blocked.test matches the denied name *.blocked.test")
    }

    func testAllowList() throws {
        let body = pattern(1000, seed: 5)
        let server = try makeServer(["/photo.jpg": HTTPResponse(body: body)])
        defer { server.stop() }
        let url = server.baseURL + "/photo.jpg"
        XCTAssertEqual(expectBody(fetch(url, limits: try limits(allow: ["127.0.0.1"])))?.data, body)
        XCTAssertEqual(expectBody(fetch(url, limits: try limits(allow: ["127.0.0.0/8"])))?.data, body)
        XCTAssertEqual(
            expectBody(fetch("http://localhost:\(server.port)/photo.jpg", limits: try limits(allow: ["localhost"])))?.data, body)
        XCTAssertEqual(server.requestCount, 3)

        let error = expectError(fetch(url, limits: try limits(allow: ["example.invalid"])))
        XCTAssertEqual(error?.kind, .policy)
        XCTAssertEqual(error?.message, "refused by the download policy: 127.0.0.1 is not in the allow list")
        XCTAssertEqual(server.requestCount, 3)
    }

    func testRedirectOutOfTheAllowListIsRefused() throws {
        let server = try makeServer(["/name": .redirect(to: "http://other.invalid:1/x"), "/ip": .redirect(to: "http://127.0.0.1:1/x")])
        defer { server.stop() }
        let allowLocalhost = try limits(allow: ["localhost"])
        let name = expectError(fetch("http://localhost:\(server.port)/name", limits: allowLocalhost))
        XCTAssertEqual(name?.kind, .policy)
        XCTAssertEqual(
            name?.message,
            "refused by the download policy after a redirect: host other.invalid is not in the allow list")
        let ip = expectError(fetch("http://localhost:\(server.port)/ip", limits: allowLocalhost))
        XCTAssertEqual(ip?.kind, .policy)
        XCTAssertEqual(
            ip?.message,
            "refused by the download policy after a redirect: 127.0.0.1 is not in the allow list")
        XCTAssertEqual(server.requestCount, 2)
    }

    func testAllowedRedirectsStillWork() throws {
        let body = pattern(500, seed: 9)
        let server = try makeServer(["/a": .redirect(to: "/b"), "/b": HTTPResponse(body: body)])
        defer { server.stop() }
        let got = expectBody(fetch(server.baseURL + "/a", limits: try limits(allow: ["127.0.0.1"], deny: ["127.0.0.2"])))
        XCTAssertEqual(got?.data, body)
        XCTAssertEqual(got?.finalURL, server.baseURL + "/b")
    }

    // MARK: the default refusals

    private let loopbackAdvice = "the worker refuses loopback addresses; start workers with --allow-loopback to allow them"

    func testLoopbackIsRefusedByDefaultBeforeAnyRequest() throws {
        let server = try makeServer(["/photo.jpg": HTTPResponse(body: pattern(10))])
        defer { server.stop() }
        let error = expectError(fetch(server.baseURL + "/photo.jpg", limits: DownloadLimits()))
        XCTAssertEqual(error?.kind, .policy)
        XCTAssertEqual(error?.message, "download refused: 127.0.0.1 is a loopback address; \(loopbackAdvice)")
        XCTAssertEqual(error?.isTransient, false)
        for host in ["2130706433", "0x7f.1", "127.1", "[::ffff:127.0.0.1]", "[::1]", "localhost", "[64:ff9b::127.0.0.1]", "[::127.0.0.1]"] {
            let spelled = expectError(fetch("http://\(host):\(server.port)/photo.jpg", limits: DownloadLimits()))
            XCTAssertEqual(spelled?.kind, .policy, host)
            XCTAssertTrue(spelled?.message.hasSuffix(loopbackAdvice) == true, "\(host): \(spelled?.message ?? "")")
        }
        XCTAssertEqual(server.requestCount, 0)
    }

    func testLoopbackIsReachedWhenAllowed() throws {
        let server = try makeServer(["/secret": HTTPResponse(body: pattern(10))])
        defer { server.stop() }
        let redirecting = try makeServer(["/a": .redirect(to: server.baseURL + "/secret")])
        defer { redirecting.stop() }
        let policy = try DownloadPolicy(allowLoopback: true)
        XCTAssertNil(policy.refusal(host: "127.0.0.1"))
        XCTAssertEqual(expectBody(fetch(redirecting.baseURL + "/a", limits: DownloadLimits(policy: policy)))?.data, pattern(10))
        XCTAssertEqual(server.requestCount, 1)
    }

    func testAllowLoopbackAllowsOnlyLoopback() throws {
        let policy = try DownloadPolicy(allowLoopback: true)
        XCTAssertNil(policy.refusal(host: "127.0.0.1"))
        XCTAssertNil(policy.refusal(host: "[::1]"))
        XCTAssertNil(policy.refusal(host: "[::ffff:127.0.0.1]"))
        XCTAssertEqual(policy.refusal(host: "169.254.169.254"), "169.254.169.254 is a cloud metadata address")
        XCTAssertEqual(policy.refusal(host: "169.254.1.1"), "169.254.1.1 is a link-local address")
        XCTAssertEqual(policy.refusal(host: "0.0.0.0"), "0.0.0.0 is an unspecified address")
        XCTAssertEqual(policy.refusal(host: "100.64.0.1"), "100.64.0.1 is a carrier-grade NAT address")
        XCTAssertEqual(policy.refusal(host: "[fe80::1]"), "fe80::1 is a link-local address")
        XCTAssertEqual(policy.refusal(host: "[2002:a9fe:a9fe::1]"), "2002:a9fe:a9fe::1, which embeds 169.254.169.254, a cloud metadata address")
    }
}
