import Foundation
import LoopbackHTTP
import PhotoClusterDownload
import XCTest

/// Status codes, redirects and limits against the loopback server.
final class DownloadResultTests: XCTestCase {
    func testOKReturnsBodyOnEngineThread() throws {
        let body = pattern(200_000)
        let server = try makeServer(["/photo.jpg": HTTPResponse(headers: ["Content-Type": "image/jpeg"], body: body)])
        defer { server.stop() }
        let engine = DownloadEngine(limits: .loopback)
        defer { engine.shutdown() }
        let completions = Completions()
        _ = engine.start(url: server.baseURL + "/photo.jpg", completion: completions.callback())
        XCTAssertTrue(completions.wait())
        let got = expectBody(completions.results().first)
        XCTAssertEqual(got?.data, body)
        XCTAssertEqual(got?.httpStatus, 200)
        XCTAssertEqual(got?.finalURL, server.baseURL + "/photo.jpg")
        XCTAssertEqual(completions.threadNames, ["pc-download"])
        XCTAssertEqual(engine.activeTransfers, 0)
        XCTAssertEqual(server.requests(forPath: "/photo.jpg"), 1)
    }

    func testNotFoundIsPermanent() throws {
        let server = try makeServer([:])
        defer { server.stop() }
        let error = expectError(fetch(server.baseURL + "/missing.jpg"))
        XCTAssertEqual(error?.kind, .httpStatus(404))
        XCTAssertTrue(error?.message.hasPrefix("HTTP 404") ?? false, error?.message ?? "")
        XCTAssertEqual(error?.url, server.baseURL + "/missing.jpg")
        XCTAssertEqual(error?.isTransient, false)
    }

    func testServerErrorsAndThrottlingAreTransient() throws {
        let server = try makeServer(["/busy": HTTPResponse(status: 503), "/slow-down": HTTPResponse(status: 429)])
        defer { server.stop() }
        let busy = expectError(fetch(server.baseURL + "/busy"))
        XCTAssertEqual(busy?.kind, .httpStatus(503))
        XCTAssertEqual(busy?.message, "HTTP 503 Service Unavailable")
        XCTAssertEqual(busy?.isTransient, true)
        XCTAssertEqual(expectError(fetch(server.baseURL + "/slow-down"))?.isTransient, true)
    }

    func testRedirectChainIsFollowed() throws {
        let body = pattern(1000, seed: 7)
        let server = try makeServer([
            "/a": .redirect(to: "/b"),
            "/b": .redirect(to: "/c", status: 301),
            "/c": HTTPResponse(body: body),
        ])
        defer { server.stop() }
        let got = expectBody(fetch(server.baseURL + "/a"))
        XCTAssertEqual(got?.data, body)
        XCTAssertEqual(got?.finalURL, server.baseURL + "/c")
        XCTAssertEqual(["/a", "/b", "/c"].map(server.requests(forPath:)), [1, 1, 1])
    }

    func testTooManyRedirects() throws {
        // /hop/N -> /hop/N+1 forever.
        let server = try LoopbackHTTPServer { request in
            let hop = Int(request.path.split(separator: "/").last ?? "") ?? 0
            return .redirect(to: "/hop/\(hop + 1)")
        }
        defer { server.stop() }
        let error = expectError(fetch(server.baseURL + "/hop/0", limits: DownloadLimits(maxRedirects: 2, policy: .loopbackAllowed)))
        XCTAssertEqual(error?.kind, .tooManyRedirects)
        XCTAssertEqual(error?.message, "more than 2 redirects")
        XCTAssertEqual(error?.isTransient, false)
        XCTAssertEqual(server.requestCount, 3)
    }

    func testRedirectToDisallowedSchemeIsRefused() throws {
        let server = try makeServer(["/a": .redirect(to: "ftp://127.0.0.1:1/x")])
        defer { server.stop() }
        let error = expectError(fetch(server.baseURL + "/a"))
        XCTAssertEqual(error?.kind, .unsupportedScheme)
        XCTAssertEqual(error?.message, "scheme 'ftp' is not allowed (allowed: http, https)")
    }

    func testSlowResponseTimesOut() throws {
        let server = try makeServer(["/slow": HTTPResponse(body: Data("late".utf8), delayBeforeHeaders: 3)])
        defer { server.stop() }
        let began = Date()
        let error = expectError(fetch(server.baseURL + "/slow", limits: DownloadLimits(totalTimeout: 0.5, policy: .loopbackAllowed)))
        let elapsed = Date().timeIntervalSince(began)
        XCTAssertEqual(error?.kind, .timeout)
        XCTAssertEqual(error?.message, "timed out after 0.5 s")
        XCTAssertEqual(error?.isTransient, true)
        XCTAssertLessThan(elapsed, 1.5)
    }

    func testBodyOverLimitWithContentLength() throws {
        let server = try makeServer(["/big": HTTPResponse(body: pattern(2 << 20))])
        defer { server.stop() }
        let error = expectError(fetch(server.baseURL + "/big", limits: DownloadLimits(maxBytes: 1 << 20, policy: .loopbackAllowed)))
        XCTAssertEqual(error?.kind, .tooLarge)
        XCTAssertEqual(error?.message, "body is over the limit of 1048576 bytes")
        XCTAssertEqual(error?.isTransient, false)
    }

    func testBodyOverLimitWithoutContentLength() throws {
        let chunked = ["Transfer-Encoding": "chunked"]
        let server = try makeServer([
            "/big": HTTPResponse(headers: chunked, body: pattern(300_000), trickle: (chunk: 32_768, interval: 0.005)),
            "/exact": HTTPResponse(headers: chunked, body: pattern(100_000), trickle: (chunk: 32_768, interval: 0.005)),
        ])
        defer { server.stop() }
        let limits = DownloadLimits(maxBytes: 100_000, policy: .loopbackAllowed)
        XCTAssertEqual(expectError(fetch(server.baseURL + "/big", limits: limits))?.kind, .tooLarge)
        XCTAssertEqual(expectBody(fetch(server.baseURL + "/exact", limits: limits))?.data, pattern(100_000))
    }

    func testDisallowedSchemesAreRefusedWithoutARequest() throws {
        let server = try makeServer([:])
        defer { server.stop() }
        let ftp = expectError(fetch("ftp://127.0.0.1:\(server.port)/photo.jpg"))
        XCTAssertEqual(ftp?.kind, .unsupportedScheme)
        XCTAssertEqual(ftp?.message, "scheme 'ftp' is not allowed (allowed: http, https)")
        XCTAssertEqual(ftp?.isTransient, false)
        XCTAssertEqual(expectError(fetch("file:///etc/hosts"))?.kind, .unsupportedScheme)
        let httpOnly = expectError(fetch(server.baseURL + "/x", limits: DownloadLimits(allowedSchemes: ["HTTPS"], policy: .loopbackAllowed)))
        XCTAssertEqual(httpOnly?.message, "scheme 'http' is not allowed (allowed: https)")
        XCTAssertEqual(server.requestCount, 0)
    }

    func testInvalidURL() {
        for url in ["not a url", "http://", ""] {
            let error = expectError(fetch(url))
            XCTAssertEqual(error?.kind, .invalidURL, url)
            XCTAssertEqual(error?.isTransient, false)
        }
    }

    func testConnectionRefusedIsTransient() throws {
        let unused = try makeServer([:])
        let port = unused.port
        unused.stop()   // nothing listens there any more
        let error = expectError(fetch("http://127.0.0.1:\(port)/photo.jpg"))
        XCTAssertEqual(error?.kind, .connection)
        XCTAssertEqual(error?.message, "could not connect to 127.0.0.1:\(port): Connection refused")
        XCTAssertEqual(error?.isTransient, true)
    }

    func testAServersReasonPhraseIsNotRepeated() throws {
        // The server says "Status 599"; the client is told the status alone.
        let server = try makeServer(["/odd": HTTPResponse(status: 599), "/gone": HTTPResponse(status: 410)])
        defer { server.stop() }
        XCTAssertEqual(expectError(fetch(server.baseURL + "/odd"))?.message, "HTTP 599")
        XCTAssertEqual(expectError(fetch(server.baseURL + "/gone"))?.message, "HTTP 410 Gone")
    }

    func testAFailedRedirectDoesNotNameItsTarget() throws {
        let unused = try makeServer([:])
        let port = unused.port
        unused.stop()
        let server = try makeServer(["/a": .redirect(to: "http://127.0.0.1:\(port)/internal")])
        defer { server.stop() }
        let error = expectError(fetch(server.baseURL + "/a"))
        XCTAssertEqual(error?.kind, .connection)
        XCTAssertEqual(error?.message, "could not connect to the redirect's target: Connection refused")
        XCTAssertEqual(error?.url, server.baseURL + "/a")
    }
}
