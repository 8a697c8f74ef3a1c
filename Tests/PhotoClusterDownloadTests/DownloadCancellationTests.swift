import Foundation
import LoopbackHTTP
import PhotoClusterDownload
import XCTest

/// Cancellation, concurrency and shutdown.
final class DownloadCancellationTests: XCTestCase {
    func testCancelDuringTrickledTransfer() throws {
        // 1 MB at 1 KB per 50 ms would take almost a minute.
        let server = try makeServer(["/slow": HTTPResponse(body: pattern(1 << 20), trickle: (chunk: 1024, interval: 0.05))])
        defer { server.stop() }
        let engine = DownloadEngine(limits: .loopback)
        defer { engine.shutdown() }
        let completions = Completions()
        let handle = engine.start(url: server.baseURL + "/slow", completion: completions.callback())
        XCTAssertTrue(eventually { server.requestCount == 1 })
        usleep(300_000)   // a few chunks in
        XCTAssertTrue(completions.results().isEmpty)

        let cancelledAt = Date()
        handle.cancel()
        XCTAssertTrue(completions.wait(timeout: 2))
        let latency = completions.time()!.timeIntervalSince(cancelledAt)
        XCTAssertLessThan(latency, 0.5)
        XCTAssertEqual(expectError(completions.results().first)?.kind, .cancelled)
        XCTAssertTrue(eventually { server.abortedResponses == 1 }, "server saw \(server.abortedResponses) aborted")
        print("cancel during trickle completed after \(Int(latency * 1000)) ms")
    }

    func testCancelWhileServerIsSilent() throws {
        let server = try makeServer(["/silent": HTTPResponse(delayBeforeHeaders: 5)])
        defer { server.stop() }
        let engine = DownloadEngine(limits: .loopback)
        defer { engine.shutdown() }
        let completions = Completions()
        let handle = engine.start(url: server.baseURL + "/silent", completion: completions.callback())
        XCTAssertTrue(eventually { server.requestCount == 1 })
        let cancelledAt = Date()
        handle.cancel()
        XCTAssertTrue(completions.wait(timeout: 2))
        XCTAssertLessThan(completions.time()!.timeIntervalSince(cancelledAt), 0.5)
        XCTAssertEqual(expectError(completions.results().first)?.kind, .cancelled)
    }

    func testCancelIsIdempotentAndCompletesOnce() throws {
        let server = try makeServer(["/ok": HTTPResponse(body: pattern(10)), "/silent": HTTPResponse(delayBeforeHeaders: 5)])
        defer { server.stop() }
        let engine = DownloadEngine(limits: .loopback)
        defer { engine.shutdown() }
        let completions = Completions()
        let silent = engine.start(url: server.baseURL + "/silent", completion: completions.callback(0))
        DispatchQueue.concurrentPerform(iterations: 8) { _ in silent.cancel() }
        let done = engine.start(url: server.baseURL + "/ok", completion: completions.callback(1))
        XCTAssertTrue(completions.wait(count: 2))
        done.cancel()   // after completion: nothing happens
        silent.cancel()
        XCTAssertEqual(engine.activeTransfers, 0)
        // The engine thread handles the cancels before this later transfer, so a second
        // completion of either would arrive before its completion.
        _ = engine.start(url: server.baseURL + "/ok", completion: completions.callback(2))
        XCTAssertTrue(completions.wait(count: 1))
        XCTAssertEqual(completions.results(2).count, 1)
        XCTAssertEqual(completions.results(0).count, 1)
        XCTAssertEqual(completions.results(1).count, 1)
        XCTAssertEqual(expectError(completions.results(0).first)?.kind, .cancelled)
        XCTAssertNotNil(expectBody(completions.results(1).first))
    }

    func testManyConcurrentTransfers() throws {
        let count = 50
        let bodies = (0..<count).map { pattern(1000 + $0 * 997, seed: $0) }
        let server = try LoopbackHTTPServer { request in
            guard let n = Int(request.path.dropFirst("/item/".count)), bodies.indices.contains(n) else { return .notFound() }
            return HTTPResponse(body: bodies[n], delayBeforeHeaders: 0.05)
        }
        defer { server.stop() }
        let engine = DownloadEngine(limits: .loopback)
        defer { engine.shutdown() }
        let completions = Completions()
        let began = Date()
        for n in 0..<count {
            _ = engine.start(url: server.baseURL + "/item/\(n)", completion: completions.callback(n))
        }
        XCTAssertTrue(completions.wait(count: count, timeout: 15))
        for n in 0..<count {
            XCTAssertEqual(expectBody(completions.results(n).first)?.data, bodies[n], "item \(n)")
        }
        XCTAssertEqual(engine.activeTransfers, 0)
        XCTAssertEqual(server.requestCount, count)
        print("\(count) concurrent transfers took \(Int(Date().timeIntervalSince(began) * 1000)) ms")
    }

    func testShutdownCancelsRunningTransfers() throws {
        let server = try makeServer(["/silent": HTTPResponse(delayBeforeHeaders: 5)])
        defer { server.stop() }
        let engine = DownloadEngine(limits: .loopback)
        let completions = Completions()
        for n in 0..<5 {
            _ = engine.start(url: server.baseURL + "/silent", completion: completions.callback(n))
        }
        XCTAssertEqual(engine.activeTransfers, 5)
        XCTAssertTrue(eventually { server.requestCount == 5 })
        let began = Date()
        engine.shutdown()
        XCTAssertLessThan(Date().timeIntervalSince(began), 0.5)
        XCTAssertTrue(completions.wait(count: 5, timeout: 0.1))   // all completed before shutdown returned
        for n in 0..<5 { XCTAssertEqual(expectError(completions.results(n).first)?.kind, .cancelled) }
        XCTAssertEqual(engine.activeTransfers, 0)
        engine.shutdown()

        // After shutdown: completed at once, as cancelled.
        let late = Completions()
        _ = engine.start(url: server.baseURL + "/silent", completion: late.callback())
        XCTAssertEqual(late.results().count, 1)
        XCTAssertEqual(expectError(late.results().first)?.kind, .cancelled)
    }

    func testShutdownFromACompletionDoesNotDeadlock() throws {
        let server = try makeServer(["/ok": HTTPResponse(body: pattern(10)), "/silent": HTTPResponse(delayBeforeHeaders: 5)])
        defer { server.stop() }
        let engine = DownloadEngine(limits: .loopback)
        let completions = Completions()
        _ = engine.start(url: server.baseURL + "/silent", completion: completions.callback(1))
        XCTAssertTrue(eventually { server.requestCount == 1 })
        let first = completions.callback(0)
        _ = engine.start(url: server.baseURL + "/ok") { result in
            engine.shutdown()   // on the engine thread: only requests the stop
            first(result)
        }
        XCTAssertTrue(completions.wait(count: 2, timeout: 2))
        XCTAssertNotNil(expectBody(completions.results(0).first))
        XCTAssertEqual(expectError(completions.results(1).first)?.kind, .cancelled)
        engine.shutdown()
    }

    func testDroppingTheEngineStopsItsThread() throws {
        let server = try makeServer(["/silent": HTTPResponse(delayBeforeHeaders: 5)])
        defer { server.stop() }
        let completions = Completions()
        do {
            let engine = DownloadEngine(limits: .loopback)
            _ = engine.start(url: server.baseURL + "/silent", completion: completions.callback())
        }
        XCTAssertTrue(completions.wait(timeout: 1))
        XCTAssertEqual(expectError(completions.results().first)?.kind, .cancelled)
    }
}
