import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTransport
import XCTest

@testable import PhotoClusterWorker

/// A real worker whose protocol version the coordinator refuses says hello again only after its
/// back-off, whatever the coordinator asks meanwhile: it never spins on a coordinator that will
/// not have it.
final class WorkerRefusalTests: XCTestCase {
    func testARefusedWorkerWaitsOutItsBackOffBeforeItsNextHello() throws {
        let coordinator = try ScriptedCoordinator()
        defer { coordinator.stop() }
        XCTAssertNotNil(try nextHello(from: coordinator, within: 10), "the worker said hello")

        try coordinator.send(.refused(.with { $0.coordinatorVersion = 9; $0.oldestAccepted = 8; $0.reason = "worker solo speaks protocol 2; upgrade the worker" }))
        let refusedAt = Date()
        // Asked to register again at once, as a coordinator asks any worker it does not know.
        try coordinator.send(.pleaseRegister(Photocluster_V1_PleaseRegister()))

        let again = try XCTUnwrap(try nextHello(from: coordinator, within: 10), "the worker said hello again once its back-off ended")
        XCTAssertGreaterThanOrEqual(again.timeIntervalSince(refusedAt), 0.9, "the worker answered the request to register during its back-off")
        let worker = coordinator.worker
        let refusals = LockedBox(-1)
        let read = DispatchSemaphore(value: 0)
        worker.loop.post {
            refusals.withLock { $0 = worker.session.refusals }
            read.signal()
        }
        read.wait()
        XCTAssertEqual(refusals.current, 1, "one refusal, no welcome since")
    }

    /// When the next hello arrives, or nil past `within` seconds.
    private func nextHello(from coordinator: ScriptedCoordinator, within seconds: TimeInterval) throws -> Date? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard let frames = try coordinator.router.receive(dontWait: true) else { usleep(5_000); continue }
            if WorkerMessages.bodies(frames).contains(where: { if case .hello = $0 { return true } else { return false } }) { return Date() }
        }
        return nil
    }
}
