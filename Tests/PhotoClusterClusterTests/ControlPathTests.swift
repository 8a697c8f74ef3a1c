import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterWorker

/// What the worker's loop does when a control message arrives must hold at once, without the
/// engine's queue thread (where every call into the operation queues is made, and which may
/// wait for a lock a low-priority stage thread holds): a suspension stops the next stage from
/// starting and a cancel stops the running one, while the queue thread is held here.
final class ControlPathTests: XCTestCase {
    /// The control path is tested here, not downloading: photos come from memory.
    private var source: MemoryPhotoSource!

    override func setUpWithError() throws {
        source = try MemoryPhotoSource(samplePhotos: ["clock.jpg"])
    }

    private func engine(with filter: any FilterStage, log: OutcomeLog) throws -> WorkerEngine {
        var filters = FilterRegistry.builtIn
        try filters.register(filter)
        return WorkerEngine(
            configuration: .init(concurrency: 1, downloadSlots: 2).allowingLoopback(), filters: filters,
            onStage: { work, stage, _, _, _ in log.stages.withLock { $0.append((work.graph.attempt, stage)) } },
            source: source,
            onOutcome: { work, outcome in log.record(work, outcome) })
    }

    /// The first filter of the chain is `first`; a point filter after it runs in the encode.
    private func graph(first: String) throws -> Photocluster_V1_PhotoGraph {
        var graph = Photocluster_V1_PhotoGraph()
        graph.jobID = "j"
        graph.name = "clock"
        graph.url = MemoryPhotoSource.url(of: "clock.jpg")
        graph.filters = try ClusterHarness.filterSpecs([first, "sepia"])
        graph.attempt = 1
        return graph
    }

    /// Holds the queue thread until the returned semaphore is signalled.
    private func holdQueueThread(of engine: WorkerEngine) -> DispatchSemaphore {
        let release = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        engine.onQueueThread {
            held.signal()
            release.wait()
        }
        XCTAssertEqual(held.wait(timeout: .now() + 10), .success)
        return release
    }

    func testASuspensionStopsTheNextStageBeforeTheQueuesHearOfIt() throws {
        let hold = HoldFilter()
        let log = OutcomeLog()
        let engine = try engine(with: hold, log: log)
        defer { engine.shutdown() }
        engine.submit(try graph(first: "hold"))
        XCTAssertEqual(hold.entered.wait(timeout: .now() + 30), .success, "the photo reached its filter")

        let release = holdQueueThread(of: engine)
        engine.setSuspended(job: "j", true)
        hold.open.withLock { $0 = true }
        // The filter ends and, as far as the job's queue knows, the encode may start: the gate
        // alone keeps it from starting, and holds it.
        XCTAssertTrue(eventually(timeout: 10) { engine.stagesWaitingAtGate(job: "j") == 1 }, "the next stage waits at the job's gate")
        XCTAssertEqual(log.kinds(attempt: 1), [], "nothing ran on while the job was suspended")
        XCTAssertFalse(log.stages(attempt: 1).contains(.encode), "the encode never ran")

        engine.setSuspended(job: "j", false)
        XCTAssertTrue(eventually(timeout: 30) { log.kinds(attempt: 1) == ["encoded"] }, "the photo ended once resumed: \(log.all)")
        release.signal()
    }

    func testACancelStopsTheRunningStageBeforeTheQueuesHearOfIt() throws {
        let spin = SpinUntilCancelledFilter()
        let log = OutcomeLog()
        let engine = try engine(with: spin, log: log)
        defer { engine.shutdown() }
        engine.submit(try graph(first: "spin"))
        XCTAssertEqual(spin.entered.wait(timeout: .now() + 30), .success, "the photo reached its filter")

        let release = holdQueueThread(of: engine)
        engine.cancel(job: "j", photos: [0])
        XCTAssertTrue(eventually(timeout: 10) { log.kinds(attempt: 1) == ["cancelled"] }, "the photo ended cancelled: \(log.all)")
        XCTAssertTrue(spin.sawCancel.current, "the running filter saw the cancel")
        release.signal()
    }
}

/// A filter that runs until its photo is cancelled (up to 30 s).
private final class SpinUntilCancelledFilter: FilterStage, @unchecked Sendable {
    let descriptor = FilterDescriptor(name: "spin", version: "1", summary: "runs until cancelled", parameters: [])
    let entered = DispatchSemaphore(value: 0)
    let sawCancel = LockedBox(false)

    func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        entered.signal()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if isCancelled() {
                sawCancel.withLock { $0 = true }
                throw FilterCancelled()
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return image
    }
}
