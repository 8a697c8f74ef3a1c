import Foundation
import LoopbackHTTP
import PhotoClusterDownload
import PhotoClusterTestSupport
import XCTest

final class LoopbackServerTests: XCTestCase {
    func testServesDirectoryByName() throws {
        let directory = Repository.temporaryDirectory("loopback")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = pattern(5000, seed: 3)
        try bytes.write(to: directory.appendingPathComponent("a.jpg"))

        let server = try LoopbackHTTPServer.serving(directory: directory)
        defer { server.stop() }
        XCTAssertEqual(expectBody(fetch(server.baseURL + "/a.jpg"))?.data, bytes)
        XCTAssertEqual(expectError(fetch(server.baseURL + "/b.jpg"))?.kind, .httpStatus(404))
        XCTAssertEqual(expectError(fetch(server.baseURL + "/..%2Fetc%2Fpasswd"))?.kind, .httpStatus(404))
        XCTAssertEqual(server.requestCount, 3)
    }

    /// A directory server keeps connections alive, and one engine fetching photo after photo
    /// from it reuses a single connection (no connect, accept and thread per photo).
    func testOneEngineReusesOneKeptAliveConnection() throws {
        let directory = Repository.temporaryDirectory("loopback")
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = (0..<4).map { pattern(20_000 + $0 * 7_000, seed: $0) }
        for (index, bytes) in files.enumerated() { try bytes.write(to: directory.appendingPathComponent("\(index).jpg")) }

        let server = try LoopbackHTTPServer.serving(directory: directory)
        defer { server.stop() }
        let engine = DownloadEngine(limits: .loopback)
        defer { engine.shutdown() }
        for (index, bytes) in files.enumerated() {
            let completions = Completions()
            _ = engine.start(url: "\(server.baseURL)/\(index).jpg", completion: completions.callback())
            XCTAssertTrue(completions.wait(), "download \(index) finished")
            XCTAssertEqual(expectBody(completions.results().first)?.data, bytes, "photo \(index), whole and alone")
        }
        XCTAssertEqual(server.requestCount, files.count)
        XCTAssertEqual(server.connectionCount, 1, "every request went over the first connection")
    }

    /// A server without keep-alive, or a client that asks for `Connection: close`, gets one
    /// request per connection, each answered whole.
    func testClosingConnectionsServeOneRequestEach() throws {
        let body = pattern(30_000, seed: 9)
        let closing = try makeServer(["/a": HTTPResponse(body: body)])
        defer { closing.stop() }
        let engine = DownloadEngine(limits: .loopback)
        defer { engine.shutdown() }
        for _ in 0..<3 {
            let completions = Completions()
            _ = engine.start(url: closing.baseURL + "/a", completion: completions.callback())
            XCTAssertTrue(completions.wait())
            XCTAssertEqual(expectBody(completions.results().first)?.data, body)
        }
        XCTAssertEqual(closing.connectionCount, 3)

        let keeping = try LoopbackHTTPServer(keepAlive: true) { _ in HTTPResponse(body: body) }
        defer { keeping.stop() }
        for _ in 0..<2 {
            // PlainHTTPClient asks for `Connection: close` and reads until the server closes.
            let reply = try PlainHTTPClient.send("GET", keeping.baseURL + "/a")
            XCTAssertEqual(reply.headers["connection"], "close")
            XCTAssertEqual(reply.body, body, "the body ends where the server closed the connection")
        }
        XCTAssertEqual(keeping.connectionCount, 2)
    }

    func testStopIsIdempotentAndRefusesNewConnections() throws {
        let server = try makeServer([:])
        server.stop()
        server.stop()
        XCTAssertEqual(expectError(fetch(server.baseURL + "/x"))?.kind, .connection)
    }
}
