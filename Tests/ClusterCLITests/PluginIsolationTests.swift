import Foundation
import PhotoClusterTestSupport
import XCTest

/// Plugins run in plugin hosts, child processes of each worker: a plugin that crashes on one
/// photo fails that photo alone, with a reason that names it, and both workers go on serving;
/// a plugin that ignores a cancel stops using CPU within seconds of `cluster cancel`.
final class PluginIsolationTests: XCTestCase {
    private var cluster: PluginCluster!

    override func setUpWithError() throws {
        cluster = try PluginCluster(label: "plugin-isolation")
    }

    override func tearDown() {
        cluster?.stop()
    }

    func testAPluginThatCrashesOnOnePhotoCostsThatPhotoOnly() throws {
        // coffee.jpg is the only sample 600 pixels wide.
        let first = try cluster.submit(tag: "first", filters: ["poison:width=600"])
        XCTAssertEqual(first.status, 1, first.stderr)
        XCTAssertEqual(first.report["succeeded"] as? Int, 13, "\(first.report)")
        let failed = try XCTUnwrap(first.report["failed"] as? [[String: Any]])
        XCTAssertEqual(failed.count, 1, "\(failed)")
        XCTAssertEqual(failed.first?["name"] as? String, "coffee.jpg")
        XCTAssertEqual(failed.first?["error"] as? String, "filter poison (plugin poison.so) crashed: SIGSEGV")

        // Both workers still serve, and neither was lost.
        let second = try cluster.submit(tag: "second", filters: ["poison:width=1"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(second.report["succeeded"] as? Int, 14)
        XCTAssertFalse(cluster.coordinator.stderrSoFar.contains(" lost"), cluster.coordinator.stderrSoFar)
        for (id, worker) in cluster.workersByID {
            XCTAssertTrue(worker.process.isRunning, "worker \(id) runs")
        }

        // A plugin that aborts costs its photo the same way.
        let third = try cluster.submit(tag: "third", filters: ["abort:width=600"])
        XCTAssertEqual(third.report["succeeded"] as? Int, 13, third.stderr)
        let aborted = try XCTUnwrap(third.report["failed"] as? [[String: Any]])
        XCTAssertEqual(aborted.compactMap { $0["error"] as? String }, ["filter abort (plugin poison.so) crashed: SIGABRT"])

        // The operator hears of it: a metric, a warning naming photo, job and plugin, and the
        // dashboard's recent failures.
        var crashes = 0.0
        for url in cluster.workerMetrics.values {
            let exposition = try HTTP.text(url + "/metrics")
            crashes += exposition.split(separator: "\n")
                .filter { $0.hasPrefix("photocluster_plugin_crashes_total{") && $0.contains(#"plugin="poison.so""#) && $0.contains(#"filter="poison""#) }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
        }
        XCTAssertEqual(crashes, 1)
        let warnings = cluster.workersByID.values.flatMap { $0.stderrSoFar.split(separator: "\n") }
            .filter { $0.contains("warning") && $0.contains("filter poison (plugin poison.so) crashed: SIGSEGV") }
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings.first?.contains("coffee.jpg") == true && warnings.first?.contains("job") == true, "\(warnings)")
        let overview = try HTTP.json(cluster.dashboard + "/api/overview")
        let reasons = (overview["failures"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }
        XCTAssertTrue(reasons.contains("filter poison (plugin poison.so) crashed: SIGSEGV"), "\(overview)")
    }

    func testCancellingAJobWhosePluginIgnoresItStopsItsCPUWithinSeconds() throws {
        let out = cluster.work.appendingPathComponent("out-spin")
        let submit = try CommandRunner.start([
            "submit", try cluster.manifest(tag: "spin").path, "--coordinator", cluster.clientEndpoint, "--out", out.path, "--filter", "spin",
        ])
        defer { submit.stop() }
        var job: String?
        XCTAssertTrue(eventually(timeout: 20) {
            let text = submit.stderrSoFar
            job = text.range(of: #"job \S+: 14 photos"#, options: .regularExpression)
                .flatMap { text[$0].dropFirst(4).split(separator: ":").first.map(String.init) }
            return job != nil
        }, submit.stderrSoFar)
        let workers = cluster.workersByID.values.map(\.process.pid)
        /// CPU seconds per second over a third of a second (a rate: the window only sets its grain).
        func cpuPerSecond() -> Double {
            let before = workers.map(PluginCluster.cpuSeconds(ofTree:)).reduce(0, +)
            Thread.sleep(forTimeInterval: 0.3)
            return (workers.map(PluginCluster.cpuSeconds(ofTree:)).reduce(0, +) - before) / 0.3
        }
        // Each worker's host spins on its photo (measured loosely: the machine may be busy).
        XCTAssertTrue(eventually(timeout: 20) { cpuPerSecond() > 0.3 && workers.allSatisfy { !PluginCluster.children(of: $0).isEmpty } })
        let spinning = workers.flatMap(PluginCluster.children(of:))

        let cancel = try CommandRunner.run(["cancel", try XCTUnwrap(job), "--coordinator", cluster.clientEndpoint], timeout: 10)
        XCTAssertEqual(cancel.status, 0, cancel.stderr)
        XCTAssertTrue(submit.waitForExit(timeout: 5), "the job ends at once")
        let cancelled = Date()
        XCTAssertTrue(eventually(timeout: 6) { cpuPerSecond() < 0.15 }, "the workers fall to idle")
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 5)
        // Killed at once; gone once its worker has reaped it, which a busy machine may delay.
        for host in spinning {
            XCTAssertTrue(eventually(timeout: 5) { kill(host, 0) != 0 }, "the spinning host \(host) was killed")
        }
        XCTAssertTrue(cluster.workersByID.values.contains { $0.stderrSoFar.contains("after its photo was cancelled; its plugin host was killed") })

        // The workers take the next job with fresh hosts.
        let next = try cluster.submit(tag: "after-spin", filters: ["nap:ms=1"])
        XCTAssertEqual(next.report["succeeded"] as? Int, 14, next.stderr)
    }

    func testAPluginHostEndsWithItsWorker() throws {
        let done = try cluster.submit(tag: "warm", filters: ["nap:ms=1"])
        XCTAssertEqual(done.status, 0, done.stderr)
        let worker = try XCTUnwrap(cluster.workersByID["w1"])
        let hosts = PluginCluster.children(of: worker.process.pid)
        XCTAssertEqual(hosts.count, 1, "an idle host is kept for the next photo")
        worker.process.killAndReap()
        XCTAssertTrue(eventually(timeout: 3) { hosts.allSatisfy { kill($0, 0) != 0 } }, "the host got SIGKILL when its worker died")
    }
}
