import Foundation
import PhotoClusterClient
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

@testable import PhotoClusterCoordinator

/// A flood of viewport changes: only a job's latest change of a turn reaches the scheduler, each
/// client makes at most its allowance a second, and the coordinator answers everyone meanwhile.
/// The full-size run (150,000 changes, `cluster status` latency and RSS) is a benchmark:
/// `scripts/bench-viewport-flood`.
final class ViewportFloodTests: XCTestCase {
    private var cluster: ScriptedWorkerCluster?

    override func tearDown() {
        cluster?.stop()
    }

    func testChangesReadInOneTurnReplaceEachOtherAndTheAllowanceRefills() {
        var inbox = ViewportInbox(perSecond: 10)
        let start = MonotonicInstant.now
        // Ten at once, then refused, for each client alike.
        XCTAssertEqual((0..<15).filter { _ in inbox.admit("alice", now: start) }.count, 10)
        XCTAssertEqual((0..<15).filter { _ in inbox.admit("bob", now: start) }.count, 10)
        XCTAssertEqual(inbox.limited, 10)
        // A tenth of a second later, one more.
        XCTAssertTrue(inbox.admit("alice", now: start + .milliseconds(100)))
        XCTAssertFalse(inbox.admit("alice", now: start + .milliseconds(100)))

        for end in 9..<19 { inbox.hold(.with { $0.visibleStart = 0; $0.visibleEnd = UInt32(end) }, for: "j1", arrivedAt: start) }
        inbox.hold(.with { $0.visibleEnd = 3 }, for: "j2", arrivedAt: start)
        XCTAssertEqual(inbox.taken, 11)
        XCTAssertEqual(inbox.coalesced, 9)
        let applied = inbox.takePending()
        XCTAssertEqual(applied.map(\.job), ["j1", "j2"])
        XCTAssertEqual(applied.first?.1.viewport.visibleEnd, 18, "the latest change is the one applied")
        XCTAssertTrue(inbox.takePending().isEmpty)
        for _ in 0..<20 { _ = inbox.admit("carol", now: start) }
        XCTAssertTrue(inbox.closeSecond(now: start + .milliseconds(200)).flooded, "a flood: over four seconds' allowance at once")
        XCTAssertFalse(inbox.closeSecond(now: start + .seconds(2)).flooded)
    }

    /// Raw requests, sent without waiting for answers as a flooding client does: every one is
    /// answered (a status or the limit), the scheduler sees far fewer changes than were sent,
    /// and the job's viewport is the latest change taken.
    func testAFloodIsCoalescedAndLimitedAndEveryRequestAnswered() async throws {
        let cluster = try ScriptedWorkerCluster(name: "viewport-flood")
        self.cluster = cluster
        var submit = try ClusterHarness.submit((0..<200).map { ("p\($0)", "http://127.0.0.1:9/p\($0).jpg") }, out: cluster.out)
        submit.viewportMode = true
        submit.viewport = .with { $0.visibleStart = 0; $0.visibleEnd = 9 }
        let job = try await cluster.client.submit(submit).id
        let epochBefore = await cluster.coordinator.onLoop { cluster.coordinator.jobs[job]?.epoch ?? 0 }

        let context = try ZMQContext()
        defer { context.terminate() }
        let socket = try ZMQSocket(context: context, kind: .dealer)
        defer { socket.close() }
        try socket.setLinger(milliseconds: 0)
        try socket.connect(cluster.coordinator.boundClientEndpoint)
        let sent = 2_000
        var statuses = 0, refusals = 0
        func readReplies() {
            while let frames = try? socket.receive(dontWait: true) {
                guard let reply = frames.last.flatMap({ Envelope.decode(Photocluster_V1_CoordinatorToClient.self, from: $0) }) else { continue }
                switch reply.body {
                case .status: statuses += 1
                case .error(let error):
                    XCTAssertTrue(error.message.contains("too many viewport changes"), error.message)
                    refusals += 1
                default: break
                }
            }
        }
        let deadline = Date().addingTimeInterval(20)
        var index = 0
        while index < sent, Date() < deadline {
            let request = Photocluster_V1_ClientToCoordinator.with {
                $0.requestID = UInt64(index + 1)
                $0.viewport = .with { change in
                    change.jobID = job
                    change.viewport = .with { $0.visibleStart = UInt32(index % 190); $0.visibleEnd = UInt32(index % 190 + 9) }
                }
            }
            // Sent as fast as the connection takes them, reading answers only when it is full.
            if (try? socket.send([Envelope.encode(request)])) != nil {
                index += 1
            } else {
                readReplies()
                usleep(200)
            }
        }
        while statuses + refusals < sent, Date() < deadline {
            readReplies()
            usleep(1_000)
        }
        XCTAssertEqual(statuses + refusals, sent, "every request is answered")
        let (taken, limited, epochAfter, visible) = await cluster.coordinator.onLoop {
            (cluster.coordinator.viewportInbox.taken, cluster.coordinator.viewportInbox.limited,
             cluster.coordinator.jobs[job]?.epoch ?? 0, cluster.coordinator.jobs[job]?.viewport.visible)
        }
        XCTAssertEqual(taken, statuses)
        XCTAssertEqual(limited, refusals)
        XCTAssertGreaterThan(refusals, 0, "one client is held to its allowance")
        XCTAssertLessThanOrEqual(epochAfter - epochBefore, UInt64(taken), "the scheduler saw at most one change per change taken")
        XCTAssertNotNil(visible)
        // Status answers meanwhile.
        let status = try await cluster.client.status(job: job)
        XCTAssertEqual(status.jobs.first?.jobID, job)
    }
}
