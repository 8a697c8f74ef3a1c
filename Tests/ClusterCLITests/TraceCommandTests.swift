import Foundation
import PhotoClusterTestSupport
import XCTest

/// `cluster trace JOB`: a job of the sample photos over two worker processes, written as a
/// Chrome trace-event file and read back as Perfetto would: valid events, one complete event per
/// stage per photo, and durations that are what the worker itself measured (its own Prometheus
/// histogram, which the task stream does not feed).
final class TraceCommandTests: XCTestCase {
    func testATraceHasOneEventPerStageOfEachPhotoTimedAsTheWorkerMeasuredIt() throws {
        let cluster = try ObservedCluster(label: "trace", photoDelay: 0)
        defer { cluster.stop() }
        try cluster.addWorker("w2")
        let count = 24
        let submit = try cluster.startBatchJob(count: count, broken: true, filter: "blur:sigma=1", also: ["--filter", "sepia"])
        let submitted = submit.finish(timeout: 120)
        XCTAssertEqual(submitted.status, 1, "one photo does not exist: \(submitted.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(submitted.stdout.utf8)) as? [String: Any]
        let job = try XCTUnwrap(summary?["job"] as? String, submitted.stdout)

        // Its phase as people say it.
        let status = try CommandRunner.run(["status", job, "--coordinator", cluster.clientEndpoint])
        XCTAssertTrue(status.stdout.contains("  finished  "), status.stdout)

        let file = cluster.work.appendingPathComponent("job.trace.json")
        let traced = try CommandRunner.run(["trace", job, "--coordinator", cluster.clientEndpoint, "--out", file.path])
        XCTAssertEqual(traced.status, 0, traced.stderr)
        XCTAssertTrue(traced.stderr.contains("to \(file.path)"), traced.stderr)

        // The JSON Object Format: traceEvents, each with name, ph, pid and tid; complete events
        // ("X") with ts and dur in microseconds, metadata ("M") naming processes and threads.
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let events = try XCTUnwrap(document["traceEvents"] as? [[String: Any]])
        for event in events {
            XCTAssertNotNil(event["name"] as? String, "\(event)")
            XCTAssertNotNil(event["pid"] as? Int, "\(event)")
            XCTAssertNotNil(event["tid"] as? Int, "\(event)")
            switch event["ph"] as? String {
            case "X":
                XCTAssertGreaterThan(event["ts"] as? Int ?? 0, 1_700_000_000_000_000, "microseconds since 1970: \(event)")
                XCTAssertNotNil(event["dur"] as? Int, "\(event)")
            case "M":
                XCTAssertTrue(["process_name", "thread_name"].contains(event["name"] as? String), "\(event)")
                XCTAssertNotNil((event["args"] as? [String: Any])?["name"] as? String, "\(event)")
            default:
                XCTFail("unexpected phase: \(event)")
            }
        }
        let processes = events.filter { $0["name"] as? String == "process_name" }.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        XCTAssertEqual(Set(processes), ["worker w1", "worker w2", "coordinator (writes)"], "one process per worker, and the coordinator's writes")

        // One complete event per stage of each photo: the blur as a filter stage of its own, the
        // sepia inside the encode, the file written by the coordinator; the photo that does not
        // exist failed its download.
        let complete = events.filter { $0["ph"] as? String == "X" }
        let args = { (event: [String: Any]) in event["args"] as? [String: Any] ?? [:] }
        var stagesByPhoto: [Int: [String]] = [:]
        for event in complete { stagesByPhoto[args(event)["photo"] as? Int ?? -1, default: []].append(event["name"] as? String ?? "?") }
        XCTAssertEqual(stagesByPhoto.count, count + 1, "\(stagesByPhoto)")
        for photo in 0..<count {
            XCTAssertEqual(stagesByPhoto[photo]?.sorted(), ["decode", "download", "encode", "filter:blur", "filter:sepia", "write"], "photo \(photo)")
        }
        let missing = complete.filter { args($0)["photoName"] as? String == "missing" }
        XCTAssertEqual(missing.map { "\($0["name"] ?? "") \(args($0)["outcome"] ?? "")" }, ["download failed"])
        XCTAssertEqual(complete.filter { args($0)["fused"] as? Bool == true }.count, count, "every sepia ran inside its encode")

        // Durations as the worker measured them: w1's events of each stage that succeeded add up
        // to the sum and count of its own stage histogram, to the microsecond the trace keeps.
        let metrics = try HTTP.text(cluster.workerMetrics + "/metrics")
        for stage in ["download", "decode", "encode"] {
            let events = complete.filter { args($0)["worker"] as? String == "w1" && $0["name"] as? String == stage && args($0)["outcome"] as? String == "ok" }
            let traced = events.reduce(0.0) { $0 + Double($1["dur"] as? Int ?? 0) / 1e6 }
            let measured = try XCTUnwrap(sample(#"photocluster_stage_duration_seconds_sum{stage="\#(stage)"}"#, in: metrics), metrics)
            let count = try XCTUnwrap(sample(#"photocluster_stage_duration_seconds_count{stage="\#(stage)"}"#, in: metrics), metrics)
            XCTAssertGreaterThan(events.count, 0, "w1 ran some of the photos: \(stage)")
            XCTAssertEqual(Double(events.count), count, "w1's \(stage) stages: trace \(events.count), worker \(count)")
            XCTAssertEqual(traced, measured, accuracy: 2e-6 * Double(events.count + 1), "w1's \(stage) time: trace \(traced) s, worker \(measured) s")
        }
    }
}
