import Foundation
import PhotoClusterClient
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterCoordinator

/// Every control change is timed, a change overtaken by the next one too: leaving those out
/// would leave out the slowest.
final class ControlAckTimingTests: XCTestCase {
    private var cluster: ScriptedWorkerCluster!

    override func setUpWithError() throws {
        cluster = try ScriptedWorkerCluster(name: "ack-timing")
    }

    override func tearDown() {
        cluster?.stop()
    }

    func testAChangeOvertakenByTheNextIsTimedWhenTheNewerOneIsAcknowledged() async throws {
        let worker = try cluster.connect("w0")
        XCTAssertTrue(eventually { self.cluster.coordinator.workerSnapshot().count == 1 })
        var submit = try ClusterHarness.submit((0..<40).map { ("p\($0)", "http://127.0.0.1:9/p\($0).jpg") }, out: cluster.out)
        submit.viewportMode = true
        submit.viewport = .with { $0.visibleEnd = 9 }
        let job = try await cluster.client.submit(submit).id

        // Two changes, then the worker acknowledges only the second (it read both in one turn).
        for start in [10, 20] { try await cluster.client.setViewport(job: job, visible: start...(start + 9)) }
        let epochs = worker.controlEpochs(count: 2)
        XCTAssertEqual(epochs.count, 2, "the worker was sent both changes")
        try worker.send(.ack(.with { $0.jobID = job; $0.epoch = epochs.max() ?? 0 }))

        let timed = await waitForTimings(of: job, count: 2)
        XCTAssertEqual(timed.count, 2, "both changes were timed: \(timed)")
        XCTAssertTrue(timed.allSatisfy { $0 >= 0 && $0 < 30_000 }, "\(timed)")
    }

    private func waitForTimings(of job: String, count: Int) async -> [Double] {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let timed = await cluster.coordinator.onLoop { self.cluster.coordinator.jobs[job]?.controlAckMilliseconds ?? [] }
            if timed.count >= count { return timed }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return await cluster.coordinator.onLoop { self.cluster.coordinator.jobs[job]?.controlAckMilliseconds ?? [] }
    }
}

extension ScriptedWorker {
    /// The epochs of the next `count` control messages, passing over everything else.
    func controlEpochs(count: Int, timeout: TimeInterval = 10) -> [UInt64] {
        var epochs: [UInt64] = []
        while epochs.count < count, let epoch = next(timeout: timeout, { body -> UInt64? in
            if case .control(let control) = body { return control.epoch }
            return nil
        }) {
            epochs.append(epoch)
        }
        return epochs
    }
}
