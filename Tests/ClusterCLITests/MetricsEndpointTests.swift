import Foundation
import PhotoClusterTestSupport
import XCTest

/// `/metrics` on a coordinator and a worker process after a real job: the counts match the job,
/// and `promtool check metrics` accepts both expositions.
final class MetricsEndpointTests: XCTestCase {
    func testMetricsCountTheJobAndPassPromtool() throws {
        let promtool = try requireTool("promtool")
        let cluster = try ObservedCluster(label: "metrics", photoDelay: 0, workerConcurrency: 2)
        defer { cluster.stop() }

        let job = try cluster.startBatchJob(count: 12, broken: true).finish()
        XCTAssertEqual(job.status, 1, "one photo is missing: \(job.stderr)")

        let coordinator = try HTTP.text(cluster.coordinatorMetrics + "/metrics")
        let worker = try HTTP.text(cluster.workerMetrics + "/metrics")
        XCTAssertEqual(sample(#"photocluster_photos_total{outcome="succeeded"}"#, in: coordinator), 12, coordinator)
        XCTAssertEqual(sample(#"photocluster_photos_total{outcome="failed"}"#, in: coordinator), 1)
        XCTAssertEqual(sample("photocluster_workers_connected", in: coordinator), 1)
        XCTAssertEqual(sample(#"photocluster_stage_duration_seconds_count{stage="decode"}"#, in: coordinator), 12)
        XCTAssertGreaterThan(sample("photocluster_downloaded_bytes_total", in: coordinator) ?? 0, 100_000)
        XCTAssertGreaterThan(sample(#"photocluster_processed_pixels_total{stage="decode"}"#, in: coordinator) ?? 0, 1_000_000)

        XCTAssertEqual(sample(#"photocluster_photos_total{outcome="succeeded"}"#, in: worker), 12, worker)
        XCTAssertEqual(sample(#"photocluster_photos_total{outcome="failed"}"#, in: worker), 1)
        XCTAssertEqual(sample(#"photocluster_stage_duration_seconds_count{stage="encode"}"#, in: worker), 12)
        XCTAssertEqual(sample(#"photocluster_stage_duration_seconds_count{stage="filter"}"#, in: worker), 12)
        XCTAssertTrue(worker.contains("# TYPE photocluster_stage_duration_seconds histogram"), worker)
        XCTAssertTrue(worker.contains("# HELP photocluster_queue_depth "), worker)

        for (role, text) in [("coordinator", coordinator), ("worker", worker)] {
            let check = try Tool.run(promtool, ["check", "metrics"], input: text)
            XCTAssertEqual(check.status, 0, "promtool check metrics on the \(role): \(check.output)")
        }
        XCTAssertEqual(try HTTP.text(cluster.workerMetrics + "/healthz"), "ok\n")

        // Structured logs: the failure names its photo, with job and photo ids as metadata.
        let failure = #"notice coordinator: photo 12 \(missing\) failed at download: HTTP 404[^\n]* job=job-[0-9a-f]+ photo=12"#
        XCTAssertNotNil(cluster.coordinator.stderrSoFar.range(of: failure, options: .regularExpression), cluster.coordinator.stderrSoFar)
        XCTAssertNotNil(cluster.worker.stderrSoFar.range(of: #"info worker: photo failed at download[^\n]* job=job-[0-9a-f]+ photo=12"#, options: .regularExpression), cluster.worker.stderrSoFar)
    }

    func testLogLevelAndListenAddressesAreChecked() throws {
        let level = try CommandRunner.run(["coordinator", "--insecure", "--log-level", "chatty"])
        XCTAssertEqual(level.status, 2)
        XCTAssertTrue(level.stderr.contains("--log-level"), level.stderr)
        let address = try CommandRunner.run(["worker", "--insecure", "--metrics-bind", "9464"])
        XCTAssertEqual(address.status, 2)
        XCTAssertTrue(address.stderr.contains("--metrics-bind takes HOST:PORT"), address.stderr)
    }
}
