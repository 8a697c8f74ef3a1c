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

/// Workers and clients given several coordinator endpoints follow whichever one answers: a
/// standby binds no port until it leads, so they leave an endpoint that refuses connections at
/// once, and they follow a job to the coordinator that takes over its journal. Real sockets,
/// real coordinator nodes with SQLite journals, each node with its own context as on its own host.
final class CoordinatorFailoverTests: XCTestCase {
    private var contexts: [ZMQContext] = []
    private var coordinators: [CoordinatorNode] = []
    private var workers: [WorkerNode] = []
    private var clients: [ClusterClient] = []
    private var server: LoopbackHTTPServer?
    private var state: URL!
    private var out: URL!
    /// Worker and client ports of a coordinator at "A" (base, base + 1) and at "B" (base + 2, base + 3).
    private var base = 0

    override func setUpWithError() throws {
        state = Repository.temporaryDirectory("failover-state")
        out = Repository.temporaryDirectory("failover-out")
        base = LoopbackPorts.consecutive(4)
    }

    override func tearDown() {
        for client in clients { client.close() }
        for worker in workers { worker.stop() }
        for coordinator in coordinators { coordinator.stop() }
        for context in contexts { context.terminate() }
        server?.stop()
        for directory in [state, out].compactMap({ $0 }) { try? FileManager.default.removeItem(at: directory) }
    }

    private func workerEndpoint(_ place: Int) -> String { "tcp://127.0.0.1:\(base + 2 * place)" }
    private func clientEndpoint(_ place: Int) -> String { "tcp://127.0.0.1:\(base + 2 * place + 1)" }
    private let a = 0, b = 1

    private func context() throws -> ZMQContext {
        let context = try ZMQContext()
        contexts.append(context)
        return context
    }

    /// A coordinator bound at `place`, on the shared journal.
    private func startCoordinator(at place: Int) throws -> CoordinatorNode {
        let node = CoordinatorNode(
            configuration: CoordinatorConfiguration(
                workerEndpoint: workerEndpoint(place), clientEndpoint: clientEndpoint(place), heartbeatInterval: 0.2, heartbeatLiveness: 50,
                stateDirectory: state),
            context: try context())
        try node.start()
        coordinators.append(node)
        return node
    }

    /// A worker given A then B. It takes the coordinator's heartbeat settings once welcomed:
    /// 0.2 s × 50, 10 s of silence, far longer than any wait here (a busy host may well hold a
    /// coordinator up for 0.6 s), so only a refused or closed connection can make it move.
    private func startWorker() throws -> WorkerNode {
        var configuration = WorkerConfiguration(
            coordinatorEndpoint: workerEndpoint(a), workerID: "follower", engine: .init(concurrency: 1).allowingLoopback(),
            heartbeatInterval: 1, heartbeatLiveness: 30)
        configuration.coordinatorEndpoints = [workerEndpoint(a), workerEndpoint(b)]
        let node = WorkerNode(configuration: configuration, context: try context())
        try node.start()
        workers.append(node)
        return node
    }

    private func workerIDs(of coordinator: CoordinatorNode) async -> [String] {
        await coordinator.status().workers.map(\.workerID)
    }

    private func eventually(timeout: TimeInterval, _ condition: () async -> Bool) async -> Bool {
        let deadline = MonotonicInstant.now.adding(seconds: timeout)
        while MonotonicInstant.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return await condition()
    }

    /// Only B is bound: A refuses connections, and the worker and a client leave it for B at
    /// once, not after a liveness period (the worker's is 30 s, the client's 3 s).
    func testAWorkerAndAClientLeaveAnEndpointThatRefusesConnections() async throws {
        let coordinator = try startCoordinator(at: b)
        let worker = try startWorker()
        let registered = await eventually(timeout: 2) { await self.workerIDs(of: coordinator) == ["follower"] }
        XCTAssertTrue(registered, "the worker did not reach B while A refused connections")
        XCTAssertEqual(worker.coordinatorEndpointInUse, workerEndpoint(b))
        XCTAssertTrue(worker.metrics.exporter.exposition().contains("photocluster_worker_coordinator_switches_total 1"),
            worker.metrics.exporter.exposition())

        let client = try ClusterClient(endpoints: [clientEndpoint(a), clientEndpoint(b)])
        clients.append(client)
        // Sent while the client still tried A (where nothing could take it): it goes to B.
        let status = try await client.status(timeout: 2)
        XCTAssertEqual(status.coordinatorID, coordinator.coordinatorID)
        XCTAssertEqual(client.endpoint, clientEndpoint(b))
        XCTAssertEqual(client.endpoints, [clientEndpoint(a), clientEndpoint(b)])
    }

    /// A job runs on the coordinator at B; B stops (its ports close) and a coordinator at A takes
    /// over the same journal. The worker follows to A and the client, which submitted the job at
    /// B, sees it finish there with every photo, neither of them restarted.
    func testAJobGoesOnWhenAnotherCoordinatorTakesOverItsJournal() async throws {
        // About 0.5 s a photo, one at a time: the job is under way when B stops (eight photos, so
        // that it is even when the client's first counts come late on a busy host).
        let server = try ClusterHarness.clockServer(slowChunk: 500, every: 0.025)
        self.server = server
        let coordinatorB = try startCoordinator(at: b)
        let worker = try startWorker()
        let client = try ClusterClient(endpoints: [clientEndpoint(a), clientEndpoint(b)])
        clients.append(client)
        let photos = (0..<8).map { (name: "p\($0)", url: "\(server.baseURL)/slow/p\($0).jpg") }
        var submit = try ClusterHarness.submit(photos, out: out, format: .jpeg)
        submit.events = .counts
        let job = try await client.submit(submit, timeout: 5)

        var summary: JobSummary?
        var tookOver = false
        for await event in job.events {
            switch event.body {
            case .progress(let progress) where !tookOver && progress.succeeded >= 1:
                XCTAssertLessThan(progress.done, progress.total, "the job ended before B stopped")
                tookOver = true
                coordinatorB.stop()
                _ = try startCoordinator(at: a)
            case .finished(let finished):
                summary = finished
            default:
                break
            }
        }
        XCTAssertTrue(tookOver, "the job never got under way at B")
        let finished = try XCTUnwrap(summary, "the client's stream ended without the job's summary")
        XCTAssertEqual(finished.progress.succeeded, 8, "photos: \(finished.photos.map { "\($0.name) \($0.state)" })")
        XCTAssertEqual(client.endpoint, clientEndpoint(a))
        XCTAssertEqual(worker.coordinatorEndpointInUse, workerEndpoint(a))
        let coordinatorA = coordinators[1]
        let followed = await workerIDs(of: coordinatorA)
        XCTAssertEqual(followed, ["follower"])
        XCTAssertEqual(coordinatorA.configuration.workerEndpoint, workerEndpoint(a))
    }

    /// A coordinator at A that took the client's requests and fell silent (its connection stays
    /// up, as a frozen process's does): after its silence period the client moves to B and sends B its status
    /// request again, but not its submit, which A may have accepted: sent twice, the job would
    /// run twice. The submit fails at its deadline, saying there was no answer. (The silence
    /// period is twice the client's 1 s heartbeat: at one, a loaded machine's late answer from B
    /// sent the client back to A.)
    func testASubmitThatMayHaveReachedASilentCoordinatorIsNotSentElsewhere() async throws {
        let silent = try ZMQSocket(context: try context(), kind: .router)
        defer { silent.close() }
        try silent.bind(clientEndpoint(a))
        let coordinator = try startCoordinator(at: b)
        let client = try ClusterClient(endpoints: [clientEndpoint(a), clientEndpoint(b)], silenceBeforeMoving: 2)
        clients.append(client)

        async let submitted = client.submit(try ClusterHarness.submit([("a", "http://127.0.0.1:9/a.jpg")], out: out), timeout: 3)
        async let asked = client.status(timeout: 10)
        let status = try await asked
        XCTAssertEqual(status.coordinatorID, coordinator.coordinatorID, "the status request was not sent again to B")
        XCTAssertEqual(client.endpoint, clientEndpoint(b))
        do {
            let job = try await submitted
            XCTFail("a submit sent to A was answered: job \(job.id)")
        } catch let error as ClusterClientError {
            XCTAssertTrue(error.message.contains("no answer from any coordinator at \(clientEndpoint(a)), \(clientEndpoint(b))"), error.message)
        }
        let after = try await client.status(timeout: 2)
        XCTAssertEqual(after.jobs.count, 0, "the submit reached B too: \(after.jobs.map(\.jobID))")
        XCTAssertNotNil(try silent.receive(dontWait: true), "A had the requests")
    }
}
