import CZeroMQ
import Foundation
import PhotoClusterClient
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

/// A client renews its watch every few seconds. For a job of a million photos, answering each
/// renewal with every photo's status, or sending a finished job's summary again to a client that
/// has it, cost the coordinator seconds each time: a renewal gets the counts, and the summary
/// only if the client was never sent it (the coordinator restarted).
final class WatchRenewalTests: XCTestCase {
    private var cluster: ScriptedWorkerCluster!

    override func setUpWithError() throws {
        cluster = try ScriptedWorkerCluster(name: "watch-renewal")
    }

    override func tearDown() {
        cluster?.stop()
    }

    func testARenewalBringsTheCountsAndTheSummaryOnlyToAClientNotSentIt() async throws {
        let jobID = try await finishedJob(photos: 3)
        let watcher = try rawClient()
        defer { watcher.close() }

        // Messages to one client keep their order: everything a watch brings comes before the
        // answer to a status request sent after it.
        try send(.watch(.with { $0.jobID = jobID }), id: 1, on: watcher)
        try send(.status(.with { $0.jobID = jobID }), id: 2, on: watcher)
        let first = heardUntilReply(to: 2, on: watcher)
        XCTAssertEqual(first.replies[1]?.jobs.first?.photos.count, 3, "a watch answers with every photo")
        XCTAssertEqual(first.summaries, 1, "a watcher of a finished job is sent its summary")

        try send(.watch(.with { $0.jobID = jobID; $0.renewal = true }), id: 3, on: watcher)
        try send(.status(.with { $0.jobID = jobID }), id: 4, on: watcher)
        let renewed = heardUntilReply(to: 4, on: watcher)
        XCTAssertEqual(renewed.replies[3]?.jobs.first?.photos.count, 0, "a renewal's answer carries the counts only")
        XCTAssertEqual(renewed.replies[3]?.jobs.first?.progress.done, 3)
        XCTAssertEqual(renewed.summaries, 0, "the summary went again to a client that had it")

        let another = try rawClient()
        defer { another.close() }
        try send(.watch(.with { $0.jobID = jobID; $0.renewal = true }), id: 5, on: another)
        try send(.status(.with { $0.jobID = jobID }), id: 6, on: another)
        XCTAssertEqual(heardUntilReply(to: 6, on: another).summaries, 1, "a client never sent the summary gets it with its renewal")
    }

    /// A job whose photos a scripted worker answered, run to its end.
    private func finishedJob(photos count: Int) async throws -> String {
        let worker = try cluster.connect("renewal")
        try worker.grant(UInt32(count))
        let photos = (0..<count).map { (name: "p\($0)", url: "http://127.0.0.1:9/p\($0).jpg") }
        let job = try await cluster.client.submit(try ClusterHarness.submit(photos, out: cluster.out, format: .jpeg))
        let photo = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg"))
        for _ in 0..<count {
            let graph = try XCTUnwrap(worker.nextAssignment(), "a photo was not assigned")
            try worker.sendResult(of: graph, encoded: photo)
        }
        for await _ in job.events {}
        return job.id
    }

    private func rawClient() throws -> ZMQSocket {
        let socket = try ZMQSocket(context: cluster.context, kind: .dealer)
        try socket.setOption(ZMQ_RCVTIMEO, Int32(100))
        try socket.connect(cluster.coordinator.boundClientEndpoint)
        return socket
    }

    private func send(_ body: Photocluster_V1_ClientToCoordinator.OneOf_Body, id: UInt64, on socket: ZMQSocket) throws {
        var message = Photocluster_V1_ClientToCoordinator()
        message.requestID = id
        message.body = body
        try socket.send([Envelope.encode(message)], dontWait: false)
    }

    /// What arrived up to the status reply to request `id`: the replies by request, and how many
    /// finished summaries came with them.
    private func heardUntilReply(to id: UInt64, on socket: ZMQSocket) -> (replies: [UInt64: StatusReply], summaries: Int) {
        var replies: [UInt64: StatusReply] = [:]
        var summaries = 0
        let deadline = Date().addingTimeInterval(10)
        while replies[id] == nil && Date() < deadline {
            guard let frames = try? socket.receive(dontWait: false),
                let message = Envelope.decode(Photocluster_V1_CoordinatorToClient.self, from: frames[frames.count - 1])
            else { continue }
            switch message.body {
            case .status(let status): replies[message.requestID] = status
            case .event(let event): if case .finished = event.body { summaries += 1 }
            default: break
            }
        }
        return (replies, summaries)
    }
}
