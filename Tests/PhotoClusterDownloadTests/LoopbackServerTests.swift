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

    func testStopIsIdempotentAndRefusesNewConnections() throws {
        let server = try makeServer([:])
        server.stop()
        server.stop()
        XCTAssertEqual(expectError(fetch(server.baseURL + "/x"))?.kind, .connection)
    }
}
