import Foundation
import PhotoClusterTransport
import XCTest

/// A fresh empty directory; the test case removes it when it finishes.
func makeTemporaryDirectory(for testCase: XCTestCase) throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("photocluster-transport-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    testCase.addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
    return directory
}

/// Writes `text` to `directory/name` with `mode`.
@discardableResult
func writeFile(_ text: String, named name: String, in directory: URL, mode: Int = 0o600) throws -> URL {
    let file = directory.appendingPathComponent(name)
    try text.write(to: file, atomically: false, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
    return file
}

func permissions(of file: URL) throws -> Int {
    try (FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// The `CurveKeyError` that `body` throws (failing the test if it throws nothing or something else).
func curveKeyError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> CurveKeyError? {
    do {
        try body()
        XCTFail("expected a CurveKeyError", file: file, line: line)
    } catch let error as CurveKeyError {
        return error
    } catch {
        XCTFail("expected a CurveKeyError, got \(error)", file: file, line: line)
    }
    return nil
}

/// One message from `socket` within `timeoutMs`, or nil. Blocks the calling (test) thread, which owns the socket.
func receive(_ socket: ZMQSocket, withinMs timeoutMs: Int) throws -> [Data]? {
    let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
    var poller = ZMQPoller([.socket(socket)])
    while true {
        if let message = try socket.receive() { return message }
        let remaining = Int(deadline.timeIntervalSinceNow * 1000)
        if remaining <= 0 { return nil }
        _ = try poller.poll(timeoutMs: remaining)
    }
}

/// Events from `monitor` until one satisfies `stop` or `timeoutMs` passes; returns all seen.
func events(
    from monitor: SocketMonitor, withinMs timeoutMs: Int, until stop: (SocketMonitor.Event) -> Bool
) -> [SocketMonitor.Event] {
    let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
    var seen: [SocketMonitor.Event] = []
    while !seen.contains(where: stop) {
        let remaining = Int(deadline.timeIntervalSinceNow * 1000)
        if remaining <= 0 { break }
        seen += monitor.poll(timeoutMs: remaining)
    }
    return seen
}

/// Waits up to `timeoutMs` for `condition`, checking every few milliseconds.
func waitUntil(timeoutMs: Int, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
    while !condition() {
        if Date() >= deadline { return false }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return true
}
