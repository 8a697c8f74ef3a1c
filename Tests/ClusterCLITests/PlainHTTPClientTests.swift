import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// The tests' HTTP client against a real server on loopback: bodies by length and chunked,
/// statuses passed through, and errors that name the URL instead of hanging.
final class PlainHTTPClientTests: XCTestCase {
    func testBodiesByLengthAndChunkedAreReadWhole() throws {
        let large = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/large?x=1": return HTTPResponse(headers: ["Content-Type": "application/octet-stream"], body: large)
            case "/chunked": return HTTPResponse(headers: ["Transfer-Encoding": "chunked"], body: large)
            default: return .notFound()
            }
        }
        defer { server.stop() }

        let byLength = try PlainHTTPClient.send("GET", server.baseURL + "/large?x=1")
        XCTAssertEqual(byLength.status, 200)
        XCTAssertEqual(byLength.headers["content-type"], "application/octet-stream")
        XCTAssertEqual(byLength.body, large)

        let chunked = try PlainHTTPClient.send("GET", server.baseURL + "/chunked")
        XCTAssertEqual(chunked.status, 200)
        XCTAssertNil(chunked.headers["content-length"])
        XCTAssertEqual(chunked.body, large)

        let missing = try PlainHTTPClient.send("GET", server.baseURL + "/nothing")
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(String(decoding: missing.body, as: UTF8.self), "not found\n")
        XCTAssertEqual(server.requestCount, 3)
        XCTAssertEqual(server.connectionCount, 3, "one request per connection")
    }

    func testASilentServerTimesOutAndAClosedPortIsRefused() throws {
        let silent = try LoopbackHTTPServer { _ in HTTPResponse(body: Data("late".utf8), delayBeforeHeaders: 3) }
        defer { silent.stop() }
        let started = Date()
        XCTAssertThrowsError(try PlainHTTPClient.send("GET", silent.baseURL + "/slow", timeout: 0.3)) { error in
            XCTAssertTrue("\(error)".contains("/slow") && "\(error)".contains("no answer in time"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.5, "gave up at its deadline, not the server's")

        let port = LoopbackPorts.consecutive(1)
        XCTAssertThrowsError(try PlainHTTPClient.send("GET", "http://127.0.0.1:\(port)/")) { error in
            XCTAssertTrue("\(error)".contains("cannot connect"), "\(error)")
        }
        XCTAssertThrowsError(try PlainHTTPClient.send("GET", "ftp://127.0.0.1/")) { error in
            XCTAssertTrue("\(error)".contains("not an http:// URL"), "\(error)")
        }
    }
}
