import Foundation
import LoopbackHTTP
import PhotoClusterCore
import PhotoClusterDownload
import PhotoClusterStorage
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterWorker

/// A download the worker is done with is let go: once a transfer completes, or its last
/// subscriber cancels it, its handle (libcurl's easy handle and the transfer's buffers behind it)
/// is freed, so a worker that runs for weeks does not grow by a few kilobytes a photo. Real
/// libcurl transfers against a loopback server through the worker's own sources; the test keeps
/// each handle they give out weakly and asserts that none is still alive.
final class DownloadReleaseTests: XCTestCase {
    func testFinishedAndCancelledTransfersAreFreed() throws {
        let server = try LoopbackHTTPServer { request in
            request.path.hasPrefix("/slow")
                ? HTTPResponse(body: Data(repeating: 1, count: 1 << 20), trickle: (chunk: 1024, interval: 0.05))
                : HTTPResponse(body: Data(repeating: 7, count: 64 << 10))
        }
        defer { server.stop() }
        let engine = DownloadEngine(limits: DownloadLimits(policy: .loopbackAllowed))
        defer { engine.shutdown() }
        let sources = WatchedSources(PhotoSources(engine: engine, s3: S3Client(configuration: S3Configuration(), engine: engine), maxBytes: 1 << 24))
        let coalescer = DownloadCoalescer(sources: sources)

        // Finished: eight photos, two subscribers each (one transfer per URL).
        let finished = DispatchGroup()
        let failures = LockedBox(0)
        var subscriptions: [DownloadCoalescer.Subscription] = []
        for photo in 0..<8 {
            for _ in 0..<2 {
                finished.enter()
                subscriptions.append(coalescer.fetch(server.baseURL + "/photo\(photo).jpg") { result in
                    if case .failure = result { failures.withLock { $0 += 1 } }
                    finished.leave()
                })
            }
        }
        XCTAssertEqual(finished.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(failures.current, 0)
        XCTAssertEqual(sources.started, 8, "one transfer per URL")
        XCTAssertTrue(eventually(timeout: 5) { sources.alive == 0 }, "\(sources.alive) of 8 finished transfers still held")

        // Cancelled: the last subscriber of a slow download leaves.
        let cancelled = DispatchGroup()
        cancelled.enter()
        let slow = coalescer.fetch(server.baseURL + "/slow.jpg") { _ in cancelled.leave() }
        XCTAssertTrue(eventually { server.requests(forPath: "/slow.jpg") == 1 })
        XCTAssertEqual(sources.alive, 1, "the slow transfer runs")
        slow.cancel()
        XCTAssertEqual(cancelled.wait(timeout: .now() + 5), .success)
        XCTAssertTrue(eventually(timeout: 5) { sources.alive == 0 }, "the cancelled transfer is still held")
        withExtendedLifetime(subscriptions) {}
    }
}

/// The worker's sources, keeping a weak reference to every transfer handle they give out.
private final class WatchedSources: PhotoSource, @unchecked Sendable {
    private final class Weak {
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }

    private let inner: PhotoSource
    private let handles = LockedBox<[Weak]>([])

    init(_ inner: PhotoSource) { self.inner = inner }

    func start(_ url: String, completion: @escaping Completion) -> CancellableTransfer {
        let handle = inner.start(url, completion: completion)
        handles.withLock { $0.append(Weak(handle as AnyObject)) }
        return handle
    }

    var started: Int { handles.withLock { $0.count } }
    var alive: Int { handles.withLock { $0.filter { $0.object != nil }.count } }
}
