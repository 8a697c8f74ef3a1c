import Foundation
import PhotoClusterTestSupport
import XCTest

/// A real Prometheus server scrapes a coordinator and a worker while a job runs, and answers a
/// `rate()` query over what it scraped from each.
final class PrometheusScrapeTests: XCTestCase {
    func testPrometheusScrapesBothNodesAndComputesARate() throws {
        let prometheus = try requireTool("prometheus")
        let cluster = try ObservedCluster(label: "prometheus", photoDelay: 0.15)
        defer { cluster.stop() }
        let port = LoopbackPorts.consecutive(1)
        let api = "http://127.0.0.1:\(port)/api/v1/query?query="
        let config = cluster.work.appendingPathComponent("prometheus.yml")
        try """
        global:
          scrape_interval: 250ms
        scrape_configs:
          - job_name: photocluster-coordinator
            static_configs: [{targets: ["\(cluster.coordinatorMetrics.dropFirst(7))"]}]
          - job_name: photocluster-worker
            static_configs: [{targets: ["\(cluster.workerMetrics.dropFirst(7))"]}]
        """.write(to: config, atomically: true, encoding: .utf8)
        let server = try RunningCommand(binary: URL(fileURLWithPath: prometheus), arguments: [
            "--config.file", config.path, "--storage.tsdb.path", cluster.work.appendingPathComponent("tsdb").path,
            "--web.listen-address", "127.0.0.1:\(port)",
        ])
        cluster.adopt(server)

        func query(_ promql: String) -> [[String: Any]] {
            let encoded = promql.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? promql
            let reply = try? HTTP.json(api + encoded)
            return ((reply?["data"] as? [String: Any])?["result"] as? [[String: Any]]) ?? []
        }
        func value(_ promql: String) -> Double? {
            (query(promql).first?["value"] as? [Any])?.last.flatMap { ($0 as? String).flatMap(Double.init) }
        }
        // Both targets up (at least one scrape of each before the job starts).
        XCTAssertTrue(eventually(timeout: 30) { value("sum(up)") == 2 }, "Prometheus never scraped both nodes: \(server.stderrSoFar.suffix(2000))")

        let job = try cluster.startBatchJob(count: 20).finish()
        XCTAssertEqual(job.status, 0, job.stderr)
        // Prometheus has scraped both nodes since the last photo once it holds the final counts.
        let scrapedTheEnd = eventually(timeout: 20) {
            value(#"max(photocluster_photos_total{job="photocluster-coordinator",outcome="succeeded"})"#) == 20
                && value(#"sum(photocluster_stage_duration_seconds_count{job="photocluster-worker",stage="download"})"#) == 20
        }
        XCTAssertTrue(scrapedTheEnd, "Prometheus never scraped the final counts")
        let coordinatorRate = value(#"sum(rate(photocluster_photos_total{job="photocluster-coordinator",outcome="succeeded"}[1m]))"#)
        let workerRate = value(#"sum(rate(photocluster_photos_total{job="photocluster-worker",outcome="succeeded"}[1m]))"#)
        XCTAssertGreaterThan(coordinatorRate ?? 0, 0, "rate over the coordinator's counter")
        XCTAssertGreaterThan(workerRate ?? 0, 0, "rate over the worker's counter")
        XCTAssertEqual(value(#"max(photocluster_photos_total{job="photocluster-coordinator",outcome="succeeded"})"#), 20)
        XCTAssertEqual(value(#"photocluster_workers_connected{job="photocluster-coordinator"}"#), 1)
        XCTAssertEqual(value(#"sum(photocluster_stage_duration_seconds_count{job="photocluster-worker",stage="download"})"#), 20)
        print("Prometheus: photos/s over 1 min, coordinator \(coordinatorRate ?? 0), worker \(workerRate ?? 0)")
    }
}
