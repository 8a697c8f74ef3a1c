import Foundation
import LoopbackHTTP
import PhotoClusterDownload
import XCTest

final class LoopbackServerTests: XCTestCase {
    func testServesDirectoryByName() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loopback-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loopback-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = (0..<4).map { pattern(20_000 + $0 * 7_000, seed: $0) }
        for (index, bytes) in files.enumerated() { try bytes.write(to: directory.appendingPathComponent("\(index).jpg")) }

        let server = try LoopbackHTTPServer.serving(directory: directory)
        defer { server.stop() }
        let engine = DownloadEngine()
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
        let engine = DownloadEngine()
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
            let reply = try rawExchange(port: keeping.port, "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            XCTAssertTrue(reply.head.contains("Connection: close"), reply.head)
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

/// Sends `request` on a new connection and reads until the server closes it.
private func rawExchange(port: UInt16, _ request: String) throws -> (head: String, body: Data) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    guard connected else { throw XCTSkip("cannot connect to 127.0.0.1:\(port)") }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    _ = request.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, 0) }
    var received = Data()
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { break }
        received.append(contentsOf: buffer[0..<count])
    }
    guard let end = received.range(of: Data("\r\n\r\n".utf8)) else { return (String(decoding: received, as: UTF8.self), Data()) }
    return (String(decoding: received[..<end.lowerBound], as: UTF8.self), Data(received[end.upperBound...]))
}
