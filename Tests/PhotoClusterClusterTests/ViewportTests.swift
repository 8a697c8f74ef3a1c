import Foundation
import LoopbackHTTP
import PhotoClusterClient
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling
@testable import PhotoClusterWorker

/// The viewport of interest over TCP: a coordinator and workers as separate nodes, each with
/// its own ZeroMQ context, and an HTTP server that records what was asked of it.
final class ViewportTests: XCTestCase {
    private var contexts: [ZMQContext] = []
    private var coordinator: CoordinatorNode!
    private var workers: [WorkerNode] = []
    private var client: ClusterClient!
    private var server: LoopbackHTTPServer!
    private var out: URL!
    /// Paths in the order the server received them.
    private let requested = LockedBox<[String]>([])

    override func setUpWithError() throws {
        let clock = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("clock.jpg"))
        let hubble = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("hubble_deep_field.jpg"))
        let log = requested
        server = try LoopbackHTTPServer { request in
            log.withLock { $0.append(request.path) }
            if request.path.hasPrefix("/slow/") {
                // ~1.5 s per photo: long enough to be in flight when the viewport moves.
                return HTTPResponse(body: clock, trickle: (chunk: 300, interval: 0.05))
            }
            if request.path.hasPrefix("/medium/") {
                // ~0.5 s per photo: still in flight when a control message arrives (it takes milliseconds).
                return HTTPResponse(body: clock, trickle: (chunk: 900, interval: 0.05))
            }
            if request.path.hasPrefix("/big/") { return HTTPResponse(body: hubble) }
            return HTTPResponse(body: clock)
        }
        out = Repository.temporaryDirectory("viewport")
        let context = try ZMQContext()
        contexts.append(context)
        coordinator = CoordinatorNode(
            configuration: CoordinatorConfiguration(workerEndpoint: "tcp://127.0.0.1:*", clientEndpoint: "tcp://127.0.0.1:*", heartbeatInterval: 0.2),
            context: context)
        try coordinator.start()
        client = try ClusterClient(endpoint: coordinator.boundClientEndpoint)
    }

    override func tearDown() {
        client?.close()
        for worker in workers { worker.stop() }
        coordinator?.stop()
        for context in contexts { context.terminate() }
        server?.stop()
        if let out { try? FileManager.default.removeItem(at: out) }
    }

    /// `gate`: a filter the test holds photos in, offered by every worker beside the built-ins.
    private func startWorkers(_ count: Int, concurrency: Int = 2, window: Int? = nil, gate: GateFilter? = nil) throws {
        var filters = FilterRegistry.builtIn
        if let gate { try filters.register(gate) }
        for index in 0..<count {
            let context = try ZMQContext()
            contexts.append(context)
            let worker = WorkerNode(
                configuration: WorkerConfiguration(
                    coordinatorEndpoint: coordinator.boundWorkerEndpoint, workerID: "w\(index)",
                    engine: .init(concurrency: concurrency).allowingLoopback(), window: window, heartbeatInterval: 0.2, filters: filters),
                context: context)
            try worker.start()
            workers.append(worker)
        }
        XCTAssertTrue(eventually { self.coordinator.workerSnapshot().count == count })
    }

    private func submit(_ paths: [String], visible: ClosedRange<Int>, prefetch: Int = 0, viewportMode: Bool = true, filters: [String] = ["sepia"]) async throws -> SubmittedJob {
        var submit = try ClusterHarness.submit(paths.enumerated().map { ("p\($0.offset)", "\(server.baseURL)\($0.element)") }, out: out, filters: filters)
        submit.viewportMode = viewportMode
        submit.viewport = .with { $0.visibleStart = UInt32(visible.lowerBound); $0.visibleEnd = UInt32(visible.upperBound); $0.prefetch = UInt32(prefetch) }
        return try await client.submit(submit)
    }

    private func photos(_ job: String) async throws -> [Photocluster_V1_PhotoStatus] {
        try await client.status(job: job).jobs.first?.photos ?? []
    }

    private func requests(matching prefix: String) -> [String] {
        requested.current.filter { $0.hasPrefix(prefix) }
    }

    func testOnlyTheViewportRunsAndMovingItCancelsWorkOutOfView() async throws {
        try startWorkers(2)
        let job = try await submit((0..<40).map { "/slow/\($0)" }, visible: 0...3, prefetch: 2)
        XCTAssertTrue(eventually { Set(self.requested.current).count == 6 }, "\(requested.current)")
        // What the coordinator holds out, and the credit it kept: the rest of the job waits
        // although there was credit to send it (the decision itself: CoordinatorCoreTests).
        let (held, credit) = await coordinator.onLoop {
            (Set(self.coordinator.workers.values.flatMap(\.inFlight).map(\.index)), self.coordinator.workers.values.map(\.credits).reduce(0, +))
        }
        XCTAssertEqual(held, Set(0...5), "nothing outside visible ∪ prefetch starts")
        XCTAssertGreaterThan(credit, 0, "the workers had room for more")
        XCTAssertEqual(Set(requested.current), Set((0...5).map { "/slow/\($0)" }), "nothing outside visible ∪ prefetch starts")

        try await client.setViewport(job: job.id, visible: 30...33)
        XCTAssertTrue(eventually(timeout: 5) { self.server.abortedResponses == 6 }, "the six transfers out of view were aborted (\(server.abortedResponses))")
        XCTAssertTrue(eventually(timeout: 5) { Set(self.requests(matching: "/slow/3")).isSuperset(of: (30...33).map { "/slow/\($0)" }) })
        let states = try await photos(job.id)
        for photo in states[0...5] {
            XCTAssertEqual(photo.state, .cancelled, photo.name)
            XCTAssertEqual(photo.reason, "left the viewport")
        }
        XCTAssertTrue(eventually(timeout: 10) { self.workers.allSatisfy { $0.inFlightCount <= 4 } })
        try await client.cancel(job: job.id)
    }

    func testNewlyVisiblePhotosStartBeforePrefetchOnes() async throws {
        // One worker taking one graph at a time makes the start order the coordinator's order.
        try startWorkers(1, concurrency: 1, window: 1)
        let job = try await submit((0..<20).map { "/fast/\($0)" }, visible: 10...11, prefetch: 2)
        var finished = false
        for await event in job.events {
            if case .progress(let progress) = event.body, progress.done == 6 { finished = true; break }
        }
        XCTAssertTrue(finished)
        XCTAssertEqual(Array(requested.current.prefix(2)).sorted(), ["/fast/10", "/fast/11"], "\(requested.current)")
        XCTAssertEqual(Set(requested.current.dropFirst(2)), ["/fast/8", "/fast/9", "/fast/12", "/fast/13"])
        // Within the prefetch band, nearer the centre goes first.
        XCTAssertEqual(Set(requested.current[2...3]), ["/fast/9", "/fast/12"], "\(requested.current)")
        try await client.cancel(job: job.id)
    }

    func testScrollingSuspendsEveryWorkerAndSettlingResumes() async throws {
        try startWorkers(2, concurrency: 1)
        let paths = (0..<12).map { "/medium/\($0)" }
        let job = try await submit(paths, visible: 0...11, viewportMode: false)
        XCTAssertTrue(eventually { self.requested.current.count >= 2 })
        try await client.setViewport(job: job.id, visible: 0...11, scrolling: true)
        // Both workers acknowledge the suspension and stop their job's queues: transfers already
        // running go on, but nothing new starts (the dispatch side: CoordinatorCoreTests).
        let epoch = try await client.status(job: job.id).jobs.first?.viewport.epoch ?? 0
        XCTAssertTrue(eventually { self.coordinator.onLoop { self.coordinator.workers.values.allSatisfy { $0.ackedEpoch[job.id] == epoch } } },
            "every worker acknowledged epoch \(epoch)")
        XCTAssertTrue(eventually { self.workers.allSatisfy { $0.engine.jobQueues(job.id)?.download.isSuspended ?? true } }, "a worker's queues still run")
        let atSuspension = requested.current.count
        XCTAssertLessThan(atSuspension, paths.count, "the job was stopped part way")
        var during: [Photocluster_V1_PhotoStatus] = []
        for _ in 0..<200 where !during.contains(where: { $0.state == .downloaded }) {
            during = try await photos(job.id)
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        XCTAssertTrue(during.contains { $0.state == .downloaded }, "running downloads finished during the suspension")
        XCTAssertEqual(requested.current.count, atSuspension, "no new transfer starts while scrolling")
        let suspended = try await client.status(job: job.id).jobs.first
        XCTAssertEqual(suspended?.suspended, true)

        try await client.setViewport(job: job.id, visible: 0...11, scrolling: false)
        var summary: JobSummary?
        for await event in job.events { if case .finished(let finished) = event.body { summary = finished } }
        XCTAssertEqual(summary?.progress.succeeded, 12)
        XCTAssertEqual(summary?.phase, .didFinish)
        // Every worker acknowledged each control epoch; the coordinator timed the round trips.
        XCTAssertEqual(summary?.controlAckMs.count, 2)
    }

    func testAPhotoScrolledBackIntoViewResumesWithoutASecondDownload() async throws {
        // Photo 0 is held in its filter (after its download) until it is cancelled: the scroll
        // away always finds it there, however fast the machine.
        let gate = GateFilter(name: "gate", inPlace: false)
        try startWorkers(1, concurrency: 1, gate: gate)
        let job = try await submit(["/big/0", "/fast/1"], visible: 0...0, filters: ["gate"])
        let holder = try await workerHoldingDownload(of: job.id, heldAt: gate)
        XCTAssertEqual(holder, "w0", "photo 0 reached its filter")
        try await client.setViewport(job: job.id, visible: 1...1)
        XCTAssertTrue(eventually(timeout: 10) { gate.cancellations.current == 1 }, "scrolled out of view, photo 0 was cancelled in its filter")
        gate.open.withLock { $0 = true }
        try await client.setViewport(job: job.id, visible: 0...1)
        var summary: JobSummary?
        for await event in job.events { if case .finished(let finished) = event.body { summary = finished } }
        XCTAssertEqual(summary?.progress.succeeded, 2)
        XCTAssertEqual(server.requests(forPath: "/big/0"), 1, "the photo resumed from the cached download")
        XCTAssertEqual(summary?.photos.first?.attempts, 2, "it was sent twice")
    }

    func testAPhotoScrolledBackIntoViewGoesBackToTheWorkerThatHoldsItsDownload() async throws {
        // Two workers: the idle one would take the photo if the coordinator did not route it
        // back to the worker whose cache holds its download.
        let gate = GateFilter(name: "gate", inPlace: false)
        try startWorkers(2, concurrency: 1, gate: gate)
        let job = try await submit(["/big/0", "/fast/1"], visible: 0...0, filters: ["gate"])
        let holder = try await workerHoldingDownload(of: job.id, heldAt: gate)
        XCTAssertFalse(holder.isEmpty, "photo 0 reached its filter")
        try await client.setViewport(job: job.id, visible: 1...1)
        XCTAssertTrue(eventually(timeout: 10) { gate.cancellations.current == 1 }, "scrolled out of view, photo 0 was cancelled in its filter")
        gate.open.withLock { $0 = true }
        try await client.setViewport(job: job.id, visible: 0...1)
        var summary: JobSummary?
        for await event in job.events { if case .finished(let finished) = event.body { summary = finished } }
        XCTAssertEqual(summary?.progress.succeeded, 2)
        XCTAssertEqual(server.requests(forPath: "/big/0"), 1, "sent back to \(holder), it resumed from the cached download")
        XCTAssertEqual(summary?.photos.first?.attempts, 2)
    }

    /// Waits until photo 0 is held at `gate` and the coordinator has heard that its download is
    /// done (stage progress comes on the worker's next tick); returns the worker holding it.
    private func workerHoldingDownload(of jobID: String, heldAt gate: GateFilter) async throws -> String {
        let deadline = Date().addingTimeInterval(30)
        while gate.entered.wait(timeout: .now()) != .success {
            guard Date() < deadline else { return "" }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        while Date() < deadline {
            if let photo = try await photos(jobID).first, photo.state == .downloaded { return photo.workerID }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return ""
    }

    func testCancellingAJobRunsItsCancelHandlers() async throws {
        try startWorkers(1)
        let job = try await submit((0..<6).map { "/slow/\($0)" } + ["/fast/6"], visible: 0...6, viewportMode: false)
        XCTAssertTrue(eventually { self.requested.current.count >= 2 })
        try await client.cancel(job: job.id)
        var phases: [Photocluster_V1_JobPhase] = []
        var summary: JobSummary?
        for await event in job.events {
            if case .phase(let phase) = event.body { phases.append(phase) }
            if case .finished(let finished) = event.body { summary = finished }
        }
        XCTAssertEqual(phases.last, .cancelled)
        XCTAssertEqual(summary?.progress.done, 7)
        XCTAssertEqual(Int(summary?.progress.cancelled ?? 0) + Int(summary?.progress.succeeded ?? 0), 7)
        let index = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("index.json"))) as? [String: Any])
        let entries = try XCTUnwrap(index["photos"] as? [[String: Any]])
        XCTAssertEqual(entries.filter { $0["state"] as? String == "cancelled" }.count, Int(summary?.progress.cancelled ?? 0))
        XCTAssertTrue(entries.filter { $0["state"] as? String == "cancelled" }.allSatisfy { $0["reason"] as? String == "the job was cancelled" })
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".tmp") }
        XCTAssertEqual(leftovers, [])
    }
}
