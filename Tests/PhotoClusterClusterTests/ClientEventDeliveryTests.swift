import CZeroMQ
import Foundation
import PhotoClusterClient
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

@testable import PhotoClusterCoordinator

/// What a job's clients hear: every photo before the job's end, the end once, and nothing lost
/// when a burst of events is larger than a client's connection holds.
final class ClientEventDeliveryTests: XCTestCase {
    private var cluster: ScriptedWorkerCluster!

    override func setUpWithError() throws {
        // In-process: a connection holds as many messages as its two high-water marks say, with
        // no kernel buffers between, so a burst that overflows it is small and certain.
        cluster = try ScriptedWorkerCluster(name: "client-events", clientEndpoint: "inproc://client-events-\(UUID().uuidString)")
    }

    override func tearDown() {
        cluster?.stop()
    }

    /// A job cancelled before any photo started settles every photo at once: its watcher hears
    /// each photo cancelled, then the job's end (it used to hear of one photo, then the end).
    func testACancelledJobsPhotosEachReachTheClientBeforeItsEnd() async throws {
        let count = 2_000
        let photos = (0..<count).map { (name: "p\($0)", url: "http://127.0.0.1:9/p\($0).jpg") }
        let job = try await cluster.client.submit(try ClusterHarness.submit(photos, out: cluster.out))

        try await cluster.client.cancel(job: job.id)

        var cancelled = Set<UInt32>()
        var summary: JobSummary?
        for await event in job.events {
            switch event.body {
            case .photo(let photo) where photo.state == .cancelled: cancelled.insert(photo.index)
            case .finished(let finished): summary = finished
            default: break
            }
        }
        XCTAssertEqual(cancelled.count, count, "photos whose cancellation the client never heard of")
        XCTAssertEqual(summary?.progress.cancelled, UInt32(count))
    }

    /// A watcher that is not reading while 3,000 photo statuses are sent to it (three times what
    /// its connection holds: the coordinator's high-water mark of 1,000 messages, and 1 on the
    /// watcher's side) gets every one of them, then the job's end and the answer to the request
    /// it sent after. Those two come in either order: the job ends once its index.json is
    /// written, on a writer thread, while the loop answers the request.
    func testABurstLargerThanTheConnectionHoldsArrivesWholeAndInOrder() async throws {
        let count = 3_000
        let photos = (0..<count).map { (name: "p\($0)", url: "http://127.0.0.1:9/p\($0).jpg") }
        var submit = try ClusterHarness.submit(photos, out: cluster.out)
        submit.events = .counts
        let job = try await cluster.client.submit(submit)

        let watcher = try rawClient { try $0.setOption(ZMQ_RCVHWM, Int32(1)) }
        defer { watcher.close() }
        try send(.watch(.with { $0.jobID = job.id; $0.events = .everyPhoto }), id: 1, on: watcher)
        let coordinator = cluster.coordinator
        XCTAssertTrue(eventually { coordinator.onLoop { coordinator.subscribers[job.id]?.all.count == 2 } }, "the watch was registered")

        try await cluster.client.cancel(job: job.id)
        try send(.status(.with { $0.jobID = job.id }), id: 2, on: watcher)
        XCTAssertTrue(
            eventually { coordinator.onLoop { !coordinator.clientOutbox.isEmpty } },
            "the burst did not fill the connection, so this test proves nothing")

        var photoIndices: [UInt32] = []
        var order: [String] = []
        while !(order.contains("reply 2") && order.contains("finished")), let message = nextMessage(on: watcher, timeout: 30, { $0 }) {
            switch message.body {
            case .event(let event):
                if case .photo(let photo) = event.body {
                    photoIndices.append(photo.index)
                    if order.last != "photos" { order.append("photos") }
                } else if case .finished = event.body {
                    order.append("finished")
                }
            default:
                order.append("reply \(message.requestID)")
            }
        }
        XCTAssertEqual(photoIndices.count, count, "photo statuses lost on the way")
        XCTAssertEqual(Set(photoIndices).count, count)
        XCTAssertEqual(Array(order.prefix(2)), ["reply 1", "photos"])
        XCTAssertEqual(Set(order.dropFirst(2)), ["finished", "reply 2"], "\(order)")
        let drained = await coordinator.onLoop { coordinator.clientOutbox.isEmpty }
        XCTAssertTrue(drained, "messages still wait for the client")
    }

    /// A client that watches a finished job gets its summary; the job's other clients, which
    /// had it already, do not get it again (clients renew their watch every 2 s).
    func testAFinishedJobsSummaryGoesOnlyToTheClientThatWatchesIt() async throws {
        let job = try await cluster.client.submit(try ClusterHarness.submit([("a", "http://127.0.0.1:9/a.jpg")], out: cluster.out))
        let first = try rawClient()
        let second = try rawClient()
        defer {
            first.close()
            second.close()
        }
        try send(.watch(.with { $0.jobID = job.id }), id: 1, on: first)
        XCTAssertNotNil(nextMessage(on: first) { $0.requestID == 1 ? $0 : nil }, "the first watch was answered")
        try await cluster.client.cancel(job: job.id)
        XCTAssertNotNil(nextMessage(on: first) { Self.isFinished($0) ? $0 : nil }, "the first watcher heard the end")

        try send(.watch(.with { $0.jobID = job.id }), id: 1, on: second)
        XCTAssertNotNil(nextMessage(on: second) { Self.isFinished($0) ? $0 : nil }, "the second watcher got the summary")
        // A summary for the first watcher would have been queued to it while the second watch was
        // handled, before the status request that follows: its reply is the barrier.
        try send(.status(.with { $0.jobID = job.id }), id: 2, on: first)
        var heardAgain = false
        let reply = nextMessage(on: first) { message -> Photocluster_V1_CoordinatorToClient? in
            if Self.isFinished(message) { heardAgain = true }
            return message.requestID == 2 ? message : nil
        }
        XCTAssertNotNil(reply, "the status request was answered")
        XCTAssertFalse(heardAgain, "the first watcher got the summary again")
    }

    private static func isFinished(_ message: Photocluster_V1_CoordinatorToClient) -> Bool {
        if case .event(let event) = message.body, case .finished = event.body { return true }
        return false
    }

    /// A client socket of the test's own, which reads only when the test says so.
    private func rawClient(_ configure: (ZMQSocket) throws -> Void = { _ in }) throws -> ZMQSocket {
        let socket = try ZMQSocket(context: cluster.context, kind: .dealer)
        try socket.setOption(ZMQ_RCVTIMEO, Int32(100))
        try configure(socket)
        try socket.connect(cluster.coordinator.boundClientEndpoint)
        return socket
    }

    /// The first message on `socket` that `pick` accepts, within `timeout` seconds.
    private func nextMessage<T>(
        on socket: ZMQSocket, timeout: TimeInterval = 10, _ pick: (Photocluster_V1_CoordinatorToClient) -> T?
    ) -> T? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            // Waits up to the socket's receive timeout for each message.
            guard let frames = try? socket.receive(dontWait: false) else { continue }
            if let message = Envelope.decode(Photocluster_V1_CoordinatorToClient.self, from: frames[frames.count - 1]), let picked = pick(message) {
                return picked
            }
        }
        return nil
    }

    private func send(_ body: Photocluster_V1_ClientToCoordinator.OneOf_Body, id: UInt64, on socket: ZMQSocket) throws {
        var message = Photocluster_V1_ClientToCoordinator()
        message.requestID = id
        message.body = body
        try socket.send([Envelope.encode(message)], dontWait: false)
    }
}

/// A client that never reads is let go once the most messages a client may have waiting are
/// waiting, instead of holding the coordinator's memory for ever.
final class ClientOutboxTests: XCTestCase {
    func testMessagesWaitInOrderAndGoWhenTheConnectionTakesThem() {
        var outbox = ClientOutbox()
        var taken: [String] = []
        var open = false
        let client = Data("c".utf8)
        let deliver = { (frames: [Data]) -> ClientOutbox.Delivery in
            guard open else { return .full }
            taken.append(String(decoding: frames[1], as: UTF8.self))
            return .sent
        }
        for text in ["a", "b", "c"] { XCTAssertTrue(outbox.send([client, Data(text.utf8)], to: client, via: deliver)) }
        XCTAssertEqual(outbox.waiting(for: client), 3)
        XCTAssertEqual(taken, [])
        open = true
        XCTAssertTrue(outbox.send([client, Data("d".utf8)], to: client, via: deliver))
        XCTAssertEqual(taken, ["a", "b", "c", "d"], "the new message went after those that waited")
        XCTAssertTrue(outbox.isEmpty)
    }

    func testAClientThatNeverReadsIsLetGoAtTheLimit() {
        var outbox = ClientOutbox()
        let client = Data("stuck".utf8)
        let full = { (_: [Data]) -> ClientOutbox.Delivery in .full }
        for _ in 0..<ClientOutbox.limit { XCTAssertTrue(outbox.send([client, Data()], to: client, via: full)) }
        XCTAssertEqual(outbox.waiting(for: client), ClientOutbox.limit)
        XCTAssertFalse(outbox.send([client, Data()], to: client, via: full), "one more than the limit")
        XCTAssertTrue(outbox.isEmpty, "the backlog went with the client")
    }

    func testAClientThatLeftTakesItsBacklogWithIt() {
        var outbox = ClientOutbox()
        let client = Data("gone".utf8)
        XCTAssertTrue(outbox.send([client, Data()], to: client) { _ in .full })
        outbox.flush { _ in .gone }
        XCTAssertTrue(outbox.isEmpty)
    }
}
