import Foundation
import LoopbackHTTP
import PhotoClusterDownload
import XCTest

typealias DownloadResult = Result<DownloadedBody, DownloadError>

/// Collects completions from the engine thread.
///
/// `@unchecked Sendable` invariant: `results` and `times` are guarded by `lock`.
final class Completions: @unchecked Sendable {
    private let lock = NSLock()
    private let signal = DispatchSemaphore(value: 0)
    private var results: [Int: [DownloadResult]] = [:]
    private var times: [Int: Date] = [:]
    private(set) var threadNames: [String] = []

    func callback(_ index: Int = 0) -> @Sendable (DownloadResult) -> Void {
        { result in
            self.lock.lock()
            self.results[index, default: []].append(result)
            self.times[index] = self.times[index] ?? Date()
            self.threadNames.append(Thread.current.name ?? "")
            self.lock.unlock()
            self.signal.signal()
        }
    }

    /// Waits for `count` completions in total; false on timeout.
    func wait(count: Int = 1, timeout: Double = 10) -> Bool {
        let deadline = DispatchTime.now() + timeout
        for _ in 0..<count where signal.wait(timeout: deadline) == .timedOut { return false }
        return true
    }

    func results(_ index: Int = 0) -> [DownloadResult] {
        lock.lock()
        defer { lock.unlock() }
        return results[index] ?? []
    }

    func time(_ index: Int = 0) -> Date? {
        lock.lock()
        defer { lock.unlock() }
        return times[index]
    }
}

extension DownloadLimits {
    /// The default limits with loopback allowed: the test servers listen on 127.0.0.1, which
    /// the default policy refuses.
    static var loopback: DownloadLimits { DownloadLimits(policy: .loopbackAllowed) }
}

/// A server answering fixed paths, 404 elsewhere.
func makeServer(_ routes: [String: HTTPResponse]) throws -> LoopbackHTTPServer {
    try LoopbackHTTPServer { routes[$0.path] ?? .notFound() }
}

/// Downloads one URL with a fresh engine and returns its single result.
func fetch(_ url: String, limits: DownloadLimits = .loopback,
           file: StaticString = #filePath, line: UInt = #line) -> DownloadResult? {
    let engine = DownloadEngine(limits: limits)
    defer { engine.shutdown() }
    let completions = Completions()
    _ = engine.start(url: url, completion: completions.callback())
    guard completions.wait() else {
        XCTFail("no completion for \(url)", file: file, line: line)
        return nil
    }
    return completions.results().first
}

func expectError(_ result: DownloadResult?, file: StaticString = #filePath, line: UInt = #line) -> DownloadError? {
    switch result {
    case .failure(let error)?: return error
    case .success(let body)?:
        XCTFail("expected an error, got \(body.data.count) bytes", file: file, line: line)
        return nil
    case nil: return nil
    }
}

func expectBody(_ result: DownloadResult?, file: StaticString = #filePath, line: UInt = #line) -> DownloadedBody? {
    switch result {
    case .success(let body)?: return body
    case .failure(let error)?:
        XCTFail("expected a body, got \(error)", file: file, line: line)
        return nil
    case nil: return nil
    }
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(timeout: Double = 2, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

func pattern(_ count: Int, seed: Int = 0) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) })
}
