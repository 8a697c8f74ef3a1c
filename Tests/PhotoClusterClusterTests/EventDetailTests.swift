import Foundation
import LoopbackHTTP
import PhotoClusterClient
import PhotoClusterEmbedded
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

/// What a client hears about its job: every photo's status, or only the counts, paced.
final class EventDetailTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var cluster: EmbeddedCluster!
    private var client: ClusterClient!
    private var out: URL!

    override func setUpWithError() throws {
        // ~3 s for a slow photo: the rest of its job ends long before it.
        server = try ClusterHarness.clockServer(slowChunk: 300, every: 0.1)
        cluster = try EmbeddedCluster(workers: 1, totalConcurrency: 2)
        try cluster.start()
        client = try ClusterClient(endpoint: cluster.clientEndpoint, context: cluster.context)
        out = Repository.temporaryDirectory("event-detail")
    }

    override func tearDown() {
        client?.close()
        cluster?.stop()
        server?.stop()
        if let out { try? FileManager.default.removeItem(at: out) }
    }

    private func submit(_ paths: [String], events: EventDetail) throws -> SubmitJob {
        var submit = try ClusterHarness.submit(paths.enumerated().map { ("p\($0.offset)", "\(server.baseURL)\($0.element)") }, out: out)
        submit.events = events
        return submit
    }

    /// The job's events as they arrive, each with the second it arrived (system uptime).
    private func follow(_ submit: SubmitJob) async throws -> [(at: TimeInterval, body: JobEvent.OneOf_Body)] {
        let job = try await client.submit(submit)
        var events: [(at: TimeInterval, body: JobEvent.OneOf_Body)] = []
        for await event in job.events {
            guard let body = event.body else { continue }
            events.append((ProcessInfo.processInfo.systemUptime, body))
        }
        return events
    }

    private func counts(_ events: [(at: TimeInterval, body: JobEvent.OneOf_Body)]) -> [(at: TimeInterval, done: UInt32)] {
        events.compactMap { if case .progress(let p) = $0.body { return ($0.at, p.done) } else { return nil } }
    }

    /// A summary of the photos that did not succeed lists those and no other, with the counts of
    /// all; a client that asks for every photo still gets every photo of the same job.
    func testASummaryOfUnsuccessfulPhotosListsOnlyThose() async throws {
        var submit = try submit((0..<4).map { "/fast/\($0)" }, events: .counts)
        submit.photos += (0..<2).map { index in .with { $0.name = "broken\(index)"; $0.url = "ftp://127.0.0.1/broken\(index).jpg" } }
        submit.summary = .unsuccessful
        let (job, summary, _) = try await ClusterHarness.run(submit, on: client)
        let listed = try XCTUnwrap(summary)
        XCTAssertEqual(listed.progress.total, 6)
        XCTAssertEqual(listed.progress.succeeded, 4)
        XCTAssertEqual(listed.progress.failed, 2)
        XCTAssertEqual(listed.photos.map(\.name).sorted(), ["broken0", "broken1"], "only the photos that did not succeed")
        XCTAssertTrue(listed.photos.allSatisfy { $0.state == .failed && !$0.reason.isEmpty })

        let (_, events) = try await client.watch(job.id, events: .counts, summary: .everyPhoto)
        var everything: JobSummary?
        for await event in events {
            if case .finished(let finished) = event.body { everything = finished }
        }
        XCTAssertEqual(try XCTUnwrap(everything).photos.count, 6, "a client that asks for every photo gets every photo")
    }

    func testEveryPhotoClientsHearEachPhotoAndTheCountsAfterIt() async throws {
        let events = try await follow(try submit((0..<20).map { "/fast/\($0)" }, events: .everyPhoto))
        let photos = events.compactMap { if case .photo(let p) = $0.body { return p.index } else { return nil } }
        XCTAssertEqual(photos.sorted(), Array(0..<20))
        XCTAssertEqual(counts(events).map(\.done), Array(1...20))
    }

    func testCountsOnlyClientsHearNoPhotosAndCountsAtMostTenTimesASecond() async throws {
        let total = 40
        let events = try await follow(try submit((0..<total).map { "/fast/\($0)" }, events: .counts))
        XCTAssertFalse(events.contains { if case .photo = $0.body { return true } else { return false } }, "no photo's status")
        let paced = counts(events)
        let dones = paced.map(\.done)
        XCTAssertEqual(dones.last, UInt32(total), "the counts that settle the last photo are always sent")
        XCTAssertEqual(dones, dones.sorted(), "counts only grow")
        XCTAssertEqual(Set(dones).count, dones.count, "no counts sent twice")
        let finished = try XCTUnwrap(events.lastIndex { if case .finished = $0.body { return true } else { return false } })
        let lastCounts = try XCTUnwrap(events.lastIndex { if case .progress = $0.body { return true } else { return false } })
        XCTAssertLessThan(lastCounts, finished, "the final counts come before the summary")
        // One send per interval, plus the final one; a slack of one for delivery jitter.
        let span = (paced.last?.at ?? 0) - (paced.first?.at ?? 0)
        XCTAssertLessThanOrEqual(paced.count, Int(span / 0.1) + 3, "\(paced.count) counts in \(span) s: \(dones)")
    }

    func testCountsThatWaitedAreSentWhileTheJobStillRuns() async throws {
        // Five quick photos end within moments of each other; the sixth trickles in for ~3 s.
        let events = try await follow(try submit((0..<5).map { "/fast/\($0)" } + ["/slow/5"], events: .counts))
        let paced = counts(events)
        let fifth = try XCTUnwrap(paced.first { $0.done == 5 }, "the counts after the fifth photo reached the client: \(paced.map(\.done))")
        let last = try XCTUnwrap(paced.last)
        XCTAssertEqual(last.done, 6)
        XCTAssertGreaterThan(last.at - fifth.at, 0.5, "the fifth photo's counts came while the slow one still ran, not with it")
        // The client renews its watch every 2 s, asking again for the counts only.
        XCTAssertFalse(
            events.contains { if case .photo = $0.body { return true } else { return false } },
            "a photo's status reached a counts-only client after it renewed its watch")
    }
}
