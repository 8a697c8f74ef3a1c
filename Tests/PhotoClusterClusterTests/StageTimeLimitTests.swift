import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterWorker

/// A JPEG decode, every filter and every encode run under the worker's stage time limit: one that
/// runs past it fails its photo with a reason naming the stage, the limit and how to raise it, and
/// is counted as an incident; a photo within its limit is untouched.
final class StageTimeLimitTests: XCTestCase {
    /// Stage time limits are tested here, not downloading: photos come from memory.
    private var source: MemoryPhotoSource!

    override func setUpWithError() throws {
        source = try MemoryPhotoSource()
    }

    /// Runs one photo through an engine with `limit`; its outcome and the incidents reported.
    private func run(_ photo: String, filters: [String], limit: TimeInterval, adding extra: (any FilterStage)? = nil) throws -> (outcome: String, incidents: [String]) {
        let outcome = LockedBox<String?>(nil)
        let incidents = LockedBox<[String]>([])
        var registry = FilterRegistry.builtIn
        if let extra { try registry.register(extra) }
        let engine = WorkerEngine(
            configuration: .init(concurrency: 1, downloadSlots: 1, stageTimeout: limit).allowingLoopback(), filters: registry,
            onStage: { _, _, _, _, _ in },
            onIncident: { _, incident in
                if case .stageTimedOut(let stage, let name, _) = incident { incidents.withLock { $0.append("\(stage.metricLabel) \(name)") } }
            },
            source: source,
            onOutcome: { _, result in
                switch result {
                case .encoded: outcome.withLock { $0 = "encoded" }
                case .failed(_, let stage, let reason, let transient): outcome.withLock { $0 = "failed \(stage) transient=\(transient): \(reason)" }
                case .cancelled: outcome.withLock { $0 = "cancelled" }
                }
            })
        defer { engine.shutdown() }
        var graph = Photocluster_V1_PhotoGraph()
        graph.jobID = "limits"
        graph.name = photo
        graph.url = MemoryPhotoSource.url(of: photo)
        graph.filters = try filters.map { Photocluster_V1_FilterSpec(try FilterSpec(parsing: $0)) }
        graph.attempt = 1
        engine.submit(graph)
        XCTAssertTrue(eventually(timeout: 30) { outcome.current != nil })
        return (outcome.current ?? "none", incidents.current)
    }

    func testADecodePastTheLimitFailsItsPhoto() throws {
        // Decoding a 2-megapixel JPEG takes far longer than 0.1 ms.
        let (outcome, incidents) = try run("retina.jpg", filters: ["sepia"], limit: 0.0001)
        XCTAssertEqual(
            outcome,
            "failed decode transient=false: decode ran past its time limit of 0.0001 s (raise it with `cluster worker --stage-timeout SECONDS`)")
        XCTAssertEqual(incidents, ["decode decode"])
    }

    // A PNG decode is not timed (its time is linear in its capped size), so PNG photos reach the
    // later stages under a tiny limit.

    func testAFilterPastTheLimitFailsItsPhoto() throws {
        // A filter held at a gate that never opens runs past any limit, and a limit of a quarter
        // of a second leaves the decode its time however busy the machine is.
        let gate = GateFilter(name: "gate", inPlace: false)
        let (outcome, incidents) = try run("brick.png", filters: ["gate"], limit: 0.25, adding: gate)
        XCTAssertEqual(
            outcome,
            "failed filter:gate transient=false: filter gate ran past its time limit of 0.25 s (raise it with `cluster worker --stage-timeout SECONDS`)")
        XCTAssertEqual(incidents, ["filter filter:gate"])
        XCTAssertEqual(gate.cancellations.current, 1, "the filter was not told to stop at the limit")
    }

    func testAnEncodePastTheLimitFailsItsPhoto() throws {
        // A point filter runs inside the encode, band by band: 32 bands of 20 ms each take the
        // encode past a quarter of a second, which leaves the header and the decode their time
        // however busy the machine is.
        let (outcome, incidents) = try run("brick.png", filters: ["slow"], limit: 0.25, adding: SlowPointFilter())
        XCTAssertEqual(
            outcome,
            "failed encode transient=false: encode ran past its time limit of 0.25 s (raise it with `cluster worker --stage-timeout SECONDS`)")
        XCTAssertEqual(incidents, ["encode encode"])
    }

    func testAPhotoWithinTheLimitIsUntouched() throws {
        let (outcome, incidents) = try run("retina.jpg", filters: ["blur:sigma=2", "sepia"], limit: 60)
        XCTAssertEqual(outcome, "encoded")
        XCTAssertEqual(incidents, [])
    }
}

/// A point filter that copies each band after 20 ms: one that runs inside the encode and takes
/// its time there.
private struct SlowPointFilter: PointFilter {
    let descriptor = FilterDescriptor(name: "slow", version: "1", summary: "a slow copy, for the encode's time limit", parameters: [])

    func pixelTransform(parameters: FilterParameters) -> PixelTransform {
        { source, destination, count in
            Thread.sleep(forTimeInterval: 0.02)
            if UnsafePointer(destination) != source { destination.update(from: source, count: count * 4) }
        }
    }
}
