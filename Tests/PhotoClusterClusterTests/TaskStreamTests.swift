import Foundation
import PhotoClusterClient
import PhotoClusterProto
import XCTest

@testable import PhotoClusterCoordinator

/// The task stream's ring (what the dashboard pages through and `cluster trace` reads) and the
/// trace-event file made from it.
final class TaskStreamTests: XCTestCase {
    private func span(_ name: String, start: UInt64, duration: UInt64, outcome: Photocluster_V1_SpanOutcome = .ok) -> Photocluster_V1_StageSpan {
        .with {
            $0.stage = name.hasPrefix("filter") ? .filter : name == "decode" ? .decode : name == "encode" ? .encode : .download
            $0.name = name
            $0.startUnixUs = start
            $0.durationUs = duration
            $0.outcome = outcome
        }
    }

    /// A full ring holds its capacity, not the next power of two past it.
    func testAFullRingReservesItsCapacityAndNoMore() {
        var stream = TaskStream(capacity: 100_000)
        for n in 1...100_000 { stream.record(worker: "w1", job: "a", photo: UInt32(n), attempt: 1, span("decode", start: UInt64(n), duration: 1)) }
        XCTAssertGreaterThanOrEqual(stream.slotsReserved, 100_000)
        XCTAssertLessThan(stream.slotsReserved, 100_100, "malloc's rounding at most, not 131,072")
        stream.record(worker: "w1", job: "a", photo: 0, attempt: 1, span("decode", start: 0, duration: 1))
        XCTAssertLessThan(stream.slotsReserved, 100_100, "a full ring replaces, it does not grow")
        XCTAssertEqual(stream.spans(after: 0, limit: 1).map(\.sequence), [100_001])
    }

    func testTheRingKeepsTheNewestSpansAndPagesBySequence() {
        var stream = TaskStream(capacity: 5)
        XCTAssertEqual(stream.spans(after: 0, limit: 10), [])
        for n in 1...3 { stream.record(worker: "w1", job: "a", photo: UInt32(n), attempt: 1, span("decode", start: UInt64(n) * 10, duration: 5)) }
        XCTAssertFalse(stream.hasDropped)
        XCTAssertEqual(stream.spans(after: 0, limit: 10).map(\.sequence), [1, 2, 3])
        XCTAssertEqual(stream.spans(after: 2, limit: 10).map(\.photo), [3])
        XCTAssertEqual(stream.spans(after: 3, limit: 10), [])
        XCTAssertEqual(stream.spans(after: 0, limit: 2).map(\.sequence), [2, 3], "the newest, when there are more than the limit")

        for n in 4...8 { stream.record(worker: n % 2 == 0 ? "w2" : "w1", job: n < 7 ? "a" : "b", photo: UInt32(n), attempt: 1, span("encode", start: UInt64(n) * 10, duration: 5)) }
        XCTAssertEqual(stream.recorded, 8)
        XCTAssertTrue(stream.hasDropped)
        XCTAssertEqual(stream.spans(after: 0, limit: 100).map(\.sequence), [4, 5, 6, 7, 8], "the oldest three gave way")
        XCTAssertEqual(stream.spans(after: 6, limit: 100).map(\.sequence), [7, 8])
        XCTAssertEqual(stream.spans(ofJob: "a").map(\.photo), [4, 5, 6])
        XCTAssertEqual(stream.spans(ofJob: "b").map(\.worker), ["w1", "w2"])
        XCTAssertEqual(stream.oldestStartMicros, 40)

        var off = TaskStream(capacity: 0)
        off.record(worker: "w1", job: "a", photo: 0, attempt: 1, span("decode", start: 1, duration: 1))
        XCTAssertEqual(off.recorded, 0)
        XCTAssertEqual(off.spans(ofJob: "a"), [])
    }

    func testATraceHasAProcessPerWorkerALanePerOverlapAndAnEventPerStage() throws {
        func taskSpan(_ worker: String, _ photo: UInt32, _ stage: Photocluster_V1_StageSpan) -> TaskSpan {
            .with { $0.workerID = worker; $0.jobID = "job"; $0.photoIndex = photo; $0.photoName = "p\(photo)"; $0.attempt = 1; $0.span = stage }
        }
        var trace = TaskTrace()
        trace.jobID = "job"
        // w1 runs photos 0 and 1 at once (two lanes), then photo 2 after photo 0 (its lane again);
        // w2 runs photo 3, whose decode failed.
        trace.spans = [
            taskSpan("w1", 0, span("download", start: 1_000, duration: 100)),
            taskSpan("w1", 0, span("decode", start: 1_100, duration: 50)),
            taskSpan("w1", 1, span("download", start: 1_020, duration: 200)),
            taskSpan("w1", 2, span("download", start: 1_150, duration: 30)),
            taskSpan("w2", 3, span("decode", start: 1_000, duration: 7, outcome: .failed)),
        ]
        let lanes = TraceEventFile.lanes(of: trace.spans)
        XCTAssertEqual(lanes["w1"]?.map { "\($0.span.photoIndex) \($0.span.span.name) \($0.lane)" },
                       ["0 download 0", "1 download 1", "0 decode 0", "2 download 0"])

        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: try TraceEventFile.json(for: trace)) as? [String: Any])
        let events = try XCTUnwrap(json["traceEvents"] as? [[String: Any]])
        let complete = events.filter { $0["ph"] as? String == "X" }
        XCTAssertEqual(complete.count, 5, "one complete event per stage")
        for event in complete {
            XCTAssertNotNil(event["ts"] as? Int); XCTAssertNotNil(event["dur"] as? Int)
            XCTAssertNotNil(event["pid"] as? Int); XCTAssertNotNil(event["tid"] as? Int)
        }
        let processes = events.filter { $0["name"] as? String == "process_name" }.map { ($0["args"] as? [String: Any])?["name"] as? String }
        XCTAssertEqual(processes, ["worker w1", "worker w2"])
        XCTAssertEqual(events.filter { $0["name"] as? String == "thread_name" && $0["pid"] as? Int == 1 }.count, 2, "w1 has two lanes")
        let failed = try XCTUnwrap(complete.first { ($0["args"] as? [String: Any])?["outcome"] as? String == "failed" })
        XCTAssertEqual(failed["dur"] as? Int, 7)
        XCTAssertEqual(failed["cat"] as? String, "decode")
        XCTAssertEqual((failed["args"] as? [String: Any])?["photoName"] as? String, "p3")
    }
}
