import Foundation
import LoopbackHTTP
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

@testable import PhotoClusterWorker

/// A worker facing a scripted coordinator (a bare ROUTER socket): control messages older than
/// the newest epoch it has seen for a job are ignored, so late messages cannot bring cancelled
/// work back; a job the coordinator closes is over on the worker, and forgotten.
final class WorkerEpochTests: XCTestCase {
    private typealias Body = Photocluster_V1_WorkerToCoordinator.OneOf_Body
    private var coordinator: ScriptedCoordinator!

    override func setUpWithError() throws {
        coordinator = try ScriptedCoordinator()
        XCTAssertTrue(coordinator.receivedHello(), "the worker said hello")
    }

    override func tearDown() {
        coordinator?.stop()
    }

    /// Messages from the worker for up to `seconds`, skipping credits and heartbeats.
    private func receive(for seconds: TimeInterval, until done: ([Body]) -> Bool = { _ in false }) -> [Body] {
        var bodies: [Body] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && !done(bodies) {
            guard let frames = try? coordinator.router.receive(dontWait: true) else { usleep(5_000); continue }
            for body in WorkerMessages.bodies(frames) {
                switch body {
                case .credit, .heartbeat, .hello: continue
                default: bodies.append(body)
                }
            }
        }
        return bodies
    }

    private var probes: UInt64 = 0

    /// What the worker sent up to its acknowledgement of a control message for a job of its own,
    /// sent now: the worker reads its messages in order and answers each control message as it
    /// reads it, so whatever it owed for the messages sent before has arrived by then.
    private func receiveUpToAProbe() throws -> [Body] {
        probes += 1
        let epoch = probes
        try coordinator.send(.resume(.with { $0.jobID = "probe"; $0.epoch = epoch }))
        let bodies = receive(for: 10) { $0.contains { if case .ack(let ack) = $0 { ack.jobID == "probe" && ack.epoch == epoch } else { false } } }
        XCTAssertTrue(bodies.contains { if case .ack(let ack) = $0 { ack.jobID == "probe" } else { false } }, "the probe was never acknowledged")
        return bodies.filter { if case .ack(let ack) = $0 { ack.jobID != "probe" } else { true } }
    }

    /// Whether the worker's engine holds photo 0 of `job`, not cancelled (waiting or running).
    private func holds(job: String) -> Bool {
        coordinator.worker.engine.inFlightKeys.contains { $0.job == job && $0.photo == 0 }
    }

    private func acks(_ bodies: [Body]) -> [UInt64] {
        bodies.compactMap { body in
            if case .ack(let ack) = body { return ack.epoch }
            return nil
        }
    }

    private func cancelled(_ bodies: [Body]) -> [UInt32] {
        bodies.compactMap { body in
            if case .cancelled(let cancelled) = body { return cancelled.photoIndex }
            return nil
        }
    }

    private func graph(job: String, epoch: UInt64) -> Photocluster_V1_PhotoGraph {
        .with {
            $0.jobID = job
            $0.photoIndex = 0
            $0.name = "clock"
            $0.url = "\(coordinator.server.baseURL)/clock.jpg"
            $0.epoch = epoch
            $0.attempt = 1
        }
    }

    func testOlderEpochsAreIgnored() throws {
        try coordinator.send(.resume(.with { $0.jobID = "j"; $0.epoch = 5 }))
        try coordinator.send(.suspend(.with { $0.jobID = "j"; $0.epoch = 3 }))
        XCTAssertEqual(acks(try receiveUpToAProbe()), [5], "the epoch-3 suspend was ignored")

        // A graph assigned under an older viewport is handed back at once, never downloaded.
        var graph = graph(job: "j", epoch: 4)
        try coordinator.send(.assign(.with { $0.graph = graph }))
        let replies = receive(for: 10) { $0.contains { if case .cancelled = $0 { true } else { false } } }
        // Each outcome names its graph's epoch, which tells it from a graph another coordinator sent.
        XCTAssertTrue(replies.contains {
            if case .cancelled(let c) = $0 { return c.photoIndex == 0 && c.attempt == 1 && c.graphEpoch == 4 } else { return false }
        }, "\(replies)")
        XCTAssertEqual(coordinator.server.requestCount, 0)

        // The same graph at the current epoch runs: the job is not suspended.
        graph.epoch = 5
        graph.attempt = 2
        try coordinator.send(.assign(.with { $0.graph = graph }))
        let results = receive(for: 10) { $0.contains { if case .result = $0 { return true } else { return false } } }
        XCTAssertTrue(results.contains {
            if case .result(let r) = $0 { return r.attempt == 2 && r.graphEpoch == 5 && r.width == 400 } else { return false }
        }, "\(results)")
        XCTAssertTrue(results.contains { if case .progress(let p) = $0 { return p.attempt == 2 && p.graphEpoch == 5 } else { return false } }, "\(results)")
        XCTAssertEqual(coordinator.server.requestCount, 1)
    }

    /// A closed job is over on the worker: its held photos end cancelled (even while the job is
    /// suspended) and its newest epoch is forgotten, so the worker keeps nothing of it.
    func testAClosedJobsPhotosEndCancelledAndItsEpochIsForgotten() throws {
        try coordinator.send(.suspend(.with { $0.jobID = "j"; $0.epoch = 5 }))
        XCTAssertEqual(acks(receive(for: 5) { !self.acks($0).isEmpty }), [5])
        try coordinator.send(.assign(.with { $0.graph = graph(job: "j", epoch: 5) }))
        XCTAssertTrue(cancelled(try receiveUpToAProbe()).isEmpty, "a suspended job's photo waits")
        XCTAssertTrue(holds(job: "j"), "a suspended job's photo waits in the engine")

        try coordinator.send(.jobClosed(.with { $0.jobID = "j" }))
        XCTAssertEqual(cancelled(receive(for: 10) { !self.cancelled($0).isEmpty }), [0], "the held photo of the closed job ends cancelled")
        XCTAssertEqual(coordinator.server.requestCount, 0, "nothing of it was downloaded")
        try coordinator.send(.resume(.with { $0.jobID = "j"; $0.epoch = 1 }))
        XCTAssertEqual(acks(receive(for: 5) { !self.acks($0).isEmpty }), [1], "the closed job's epoch 5 was forgotten")
    }

    /// A welcome lists the coordinator's open jobs; every other job the worker knows is closed.
    /// A welcome without the list (from a coordinator that does not send it) closes nothing.
    func testAWelcomeClosesTheJobsItDoesNotList() throws {
        try coordinator.send(.suspend(.with { $0.jobID = "gone"; $0.epoch = 3 }))
        try coordinator.send(.suspend(.with { $0.jobID = "open"; $0.epoch = 3 }))
        XCTAssertEqual(acks(receive(for: 5) { self.acks($0).count == 2 }), [3, 3])
        try coordinator.send(.assign(.with { $0.graph = graph(job: "gone", epoch: 3) }))

        try coordinator.send(.welcome(.with { $0.coordinatorID = "same" }))
        XCTAssertTrue(cancelled(try receiveUpToAProbe()).isEmpty, "a welcome without the list closed a job")
        XCTAssertTrue(holds(job: "gone"), "a welcome without the list closed a job")

        try coordinator.send(.welcome(.with { $0.coordinatorID = "same"; $0.openJobs.jobIds = ["open"] }))
        XCTAssertEqual(cancelled(receive(for: 10) { !self.cancelled($0).isEmpty }), [0], "the unlisted job's photo ends cancelled")
        // Handled in order: once the second is acknowledged, the first was ignored.
        try coordinator.send(.resume(.with { $0.jobID = "open"; $0.epoch = 1 }))
        try coordinator.send(.resume(.with { $0.jobID = "gone"; $0.epoch = 2 }))
        XCTAssertEqual(acks(receive(for: 5) { !self.acks($0).isEmpty }), [2], "only the unlisted job's epoch was forgotten")
    }
}
