import Foundation
import LoopbackHTTP
import PhotoClusterClient
import PhotoClusterCoordinator
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import PhotoClusterWorker
import XCTest

/// A coordinator and workers as separate nodes, each with its own ZeroMQ context, over TCP on
/// loopback: the same wiring as separate hosts.
final class TCPClusterTests: XCTestCase {
    private var contexts: [ZMQContext] = []
    private var coordinator: CoordinatorNode?
    private var workers: [WorkerNode] = []
    private var clients: [ClusterClient] = []
    private var server: LoopbackHTTPServer!
    private var out: URL!
    /// The `/slow/` paths asked for so far: each trickles only the first time.
    private let slowAsked = LockedBox<Set<String>>([])

    override func setUpWithError() throws {
        let asked = slowAsked
        server = try LoopbackHTTPServer { request in
            if request.path.hasPrefix("/slow/") {
                // 200 KB trickled over ~4 s the first time: long enough to be in flight when the
                // test acts. Asked again (by the worker a lost one's photos go to), it comes at once.
                let first = asked.withLock { $0.insert(request.path).inserted }
                return HTTPResponse(body: Data(repeating: 0xFF, count: 200_000), trickle: first ? (chunk: 1000, interval: 0.02) : nil)
            }
            let file = Repository.samplePhotos.appendingPathComponent(String(request.path.dropFirst()))
            guard let bytes = try? Data(contentsOf: file) else { return .notFound() }
            return HTTPResponse(body: bytes)
        }
        out = Repository.temporaryDirectory("tcp")
    }

    override func tearDown() {
        for client in clients { client.close() }
        for worker in workers { worker.stop() }
        coordinator?.stop()
        for context in contexts { context.terminate() }
        server?.stop()
        if let out { try? FileManager.default.removeItem(at: out) }
    }

    private func context() throws -> ZMQContext {
        let context = try ZMQContext()
        contexts.append(context)
        return context
    }

    private func startCoordinator(workerPort: Int = 0, liveness: Int = 3) throws -> CoordinatorNode {
        let node = CoordinatorNode(
            configuration: CoordinatorConfiguration(
                workerEndpoint: workerPort == 0 ? "tcp://127.0.0.1:*" : "tcp://127.0.0.1:\(workerPort)",
                clientEndpoint: "tcp://127.0.0.1:*", heartbeatInterval: 0.2, heartbeatLiveness: liveness),
            context: try context())
        try node.start()
        coordinator = node
        return node
    }

    private func startWorker(_ id: String, endpoint: String, concurrency: Int = 1) throws -> WorkerNode {
        let node = WorkerNode(
            configuration: WorkerConfiguration(
                coordinatorEndpoint: endpoint, workerID: id, engine: .init(concurrency: concurrency).allowingLoopback(), heartbeatInterval: 0.2),
            context: try context())
        try node.start()
        workers.append(node)
        return node
    }

    private func client(for node: CoordinatorNode) throws -> ClusterClient {
        let client = try ClusterClient(endpoint: node.boundClientEndpoint)
        clients.append(client)
        return client
    }

    func testWorkSpreadsOverTwoWorkers() async throws {
        let node = try startCoordinator()
        _ = try startWorker("alpha", endpoint: node.boundWorkerEndpoint)
        _ = try startWorker("beta", endpoint: node.boundWorkerEndpoint)
        XCTAssertTrue(eventually { node.workerSnapshot().count == 2 })
        let (_, summary, _) = try await ClusterHarness.run(
            try ClusterHarness.submit(ClusterHarness.samples(on: server), out: out), on: try client(for: node))
        XCTAssertEqual(Int(summary?.progress.succeeded ?? 0), Repository.samplePhotoFiles.count)
        let completed = Dictionary(uniqueKeysWithValues: node.workerSnapshot().map { ($0.id, $0.completed) })
        XCTAssertGreaterThan(completed["alpha"] ?? 0, 0, "\(completed)")
        XCTAssertGreaterThan(completed["beta"] ?? 0, 0, "\(completed)")
        XCTAssertEqual((completed["alpha"] ?? 0) + (completed["beta"] ?? 0), UInt64(Repository.samplePhotoFiles.count))
    }

    func testWorkersStartedBeforeTheCoordinatorConnectWhenItArrives() async throws {
        let port = LoopbackPorts.consecutive(1)
        _ = try startWorker("early", endpoint: "tcp://127.0.0.1:\(port)")
        try await Task.sleep(nanoseconds: 200_000_000)  // a connect or two fails first (it retries every 100 ms)
        let node = try startCoordinator(workerPort: port)
        XCTAssertTrue(eventually { node.workerSnapshot().count == 1 }, "the early worker kept retrying and registered")
        let (_, summary, _) = try await ClusterHarness.run(
            try ClusterHarness.submit([("clock", "\(server.baseURL)/clock.jpg")], out: out), on: try client(for: node))
        XCTAssertEqual(summary?.progress.succeeded, 1)
    }

    func testPhotosOfALostWorkerGoToAnother() async throws {
        let node = try startCoordinator(liveness: 2)
        let doomed = try startWorker("doomed", endpoint: node.boundWorkerEndpoint, concurrency: 2)
        XCTAssertTrue(eventually { node.workerSnapshot().count == 1 })
        let client = try client(for: node)
        let photos = (0..<2).map { ("slow\($0)", "\(server.baseURL)/slow/\($0)") } + [("clock", "\(server.baseURL)/clock.jpg")]
        let job = try await client.submit(try ClusterHarness.submit(photos, out: out))
        // Both slow photos are downloading on the doomed worker when it leaves.
        XCTAssertTrue(eventually { node.workerSnapshot().first?.inFlight ?? 0 >= 2 && self.slowAsked.current.count == 2 })
        // The worker leaves mid-job; a new one joins and must finish everything.
        doomed.stop()
        _ = try startWorker("rescuer", endpoint: node.boundWorkerEndpoint, concurrency: 4)
        var summary: JobSummary?
        for await event in job.events {
            if case .finished(let finished) = event.body { summary = finished }
        }
        let result = try XCTUnwrap(summary)
        XCTAssertEqual(result.progress.done, 3)
        XCTAssertEqual(result.photo(named: "clock")?.state, .done)
        XCTAssertGreaterThanOrEqual(result.requeues, 1)
        for photo in result.photos where photo.name.hasPrefix("slow") {
            XCTAssertEqual(photo.state, .failed, "slow bodies are not images")
            XCTAssertEqual(photo.stage, "decode")
        }
    }

    func testCancellingAJobAbortsRunningTransfers() async throws {
        let node = try startCoordinator()
        _ = try startWorker("one", endpoint: node.boundWorkerEndpoint, concurrency: 2)
        XCTAssertTrue(eventually { node.workerSnapshot().count == 1 })
        let client = try client(for: node)
        let photos = (0..<3).map { ("slow\($0)", "\(server.baseURL)/slow/\($0)") }
        let job = try await client.submit(try ClusterHarness.submit(photos, out: out))
        XCTAssertTrue(eventually { self.server.requestCount == 3 }, "all three transfers started")
        let cancelledAt = Date()
        try await client.cancel(job: job.id)
        var summary: JobSummary?
        for await event in job.events {
            if case .finished(let finished) = event.body { summary = finished }
        }
        XCTAssertEqual(summary?.progress.cancelled, 3)
        XCTAssertEqual(summary?.phase, .cancelled)
        XCTAssertTrue(eventually(timeout: 2) { self.server.abortedResponses == 3 }, "the server saw every transfer aborted")
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 2.5)
        XCTAssertTrue(eventually { node.workerSnapshot().first?.inFlight == 0 })
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.hasPrefix(".photocluster-owner") }, ["index.json"], "no photo file, no temporary file")
    }
}
