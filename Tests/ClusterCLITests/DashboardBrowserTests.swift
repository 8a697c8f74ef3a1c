import Foundation
import PhotoClusterTestSupport
import XCTest

/// The dashboard in headless Chromium (Tests/Browser/drive_dashboard.py), as an operator reaches
/// it on a coordinator with CURVE keys: from the URL with its token, which becomes a cookie the
/// page's scripts cannot read. The overview shows a running job's progress, and scrolling the job
/// page sets the job's viewport through the HTTP API (with the cookie), which the coordinator
/// reports back and which cancels work out of view; its thumbnails are the API's outputs; nothing
/// on the pages breaks the Content-Security-Policy. Screenshots of both pages are
/// kept in .build/screenshots/.
final class DashboardBrowserTests: XCTestCase {
    func testScrollingTheJobPageDrivesTheViewport() throws {
        _ = try requireTool("chromium")
        _ = try requireTool("chromedriver")
        let python = Repository.root.appendingPathComponent(".build-test-tools/venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw XCTSkip("\(python.path) is missing: run scripts/install-test-tools (make test does)")
        }
        let cluster = try ObservedCluster(label: "browser", photoDelay: 0.3, secured: true)
        defer { cluster.stop() }
        let job = try cluster.submitViewportJob(count: 150, visible: "0..11", prefetch: 4)
        XCTAssertTrue(eventually(timeout: 15) { ((try? cluster.status(of: job))?["progress"] as? [String: Any])?["done"] as? Int ?? 0 >= 1 })

        let screenshots = Repository.root.appendingPathComponent(".build/screenshots")
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        let driver = try Tool.run(python.path, [
            Repository.root.appendingPathComponent("Tests/Browser/drive_dashboard.py").path,
            "--base", cluster.dashboard, "--token", try XCTUnwrap(cluster.dashboardToken), "--job", job, "--screenshots", screenshots.path, "--timeout", "60",
        ], timeout: 180)
        XCTAssertEqual(driver.status, 0, driver.output)
        let line = try XCTUnwrap(driver.output.split(separator: "\n").last { $0.hasPrefix("{") }, driver.output)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let page = try XCTUnwrap(report["viewport"] as? [String: Any])
        let pageStart = try XCTUnwrap(page["visibleStart"] as? Int)
        XCTAssertGreaterThan(pageStart, 0, "scrolled down: \(report)")
        XCTAssertNotNil((report["overviewProgress"] as? String)?.range(of: #"^[1-9][0-9]*/150$"#, options: .regularExpression), "\(report)")
        let thumbnail = try XCTUnwrap(report["thumbnail"] as? String, "\(report)")
        XCTAssertTrue(thumbnail.hasPrefix("/v1/jobs/\(job)/photos/") && thumbnail.hasSuffix("/output"), thumbnail)
        XCTAssertEqual(report["tokenInAddress"] as? Bool, false, "\(report)")
        XCTAssertEqual(report["tokenVisibleToScripts"] as? Bool, false, "\(report)")

        // The coordinator reports the viewport the page set, and cancelled photos out of view.
        let summary = try cluster.status(of: job)
        let viewport = try XCTUnwrap(summary["viewport"] as? [String: Any])
        XCTAssertEqual(viewport["visibleStart"] as? Int, pageStart, "\(summary)")
        XCTAssertEqual(viewport["visibleEnd"] as? Int, page["visibleEnd"] as? Int)
        XCTAssertNotEqual(viewport["scrolling"] as? Bool, true)
        let metrics = try HTTP.text(cluster.coordinatorMetrics + "/metrics")
        XCTAssertEqual(try HTTP.get(cluster.dashboard + "/api/overview").status, 401, "the dashboard needs its token")
        XCTAssertGreaterThan(sample(#"photocluster_cancellations_total{reason="viewport"}"#, in: metrics) ?? 0, 0, metrics)
        for name in ["overview.png", "job-top.png", "job-scrolled.png"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: screenshots.appendingPathComponent(name).path)[.size] as? Int) ?? 0
            XCTAssertGreaterThan(size, 10_000, "\(name) was saved")
        }
        print("Dashboard screenshots: \(screenshots.path)/{overview,job-top,job-scrolled}.png")
    }

    /// The task stream during a job of the sample photos over two workers: each worker has a lane
    /// with bars of every stage (blur runs as a filter of its own, sepia inside the encode), and a
    /// click on a bar names its photo, job, worker and stage. The screenshot is the one in
    /// docs/operating.md.
    func testTheTaskStreamShowsEveryStageOfEachWorker() throws {
        _ = try requireTool("chromium")
        _ = try requireTool("chromedriver")
        let python = Repository.root.appendingPathComponent(".build-test-tools/venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw XCTSkip("\(python.path) is missing: run scripts/install-test-tools (make test does)")
        }
        let cluster = try ObservedCluster(label: "task-stream", photoDelay: 0.15, secured: true)
        defer { cluster.stop() }
        try cluster.addWorker("w2")
        let submit = try cluster.startBatchJob(count: 60, broken: true, filter: "blur:sigma=1", also: ["--filter", "sepia"])

        let screenshots = Repository.root.appendingPathComponent(".build/screenshots")
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        let driver = try Tool.run(python.path, [
            Repository.root.appendingPathComponent("Tests/Browser/drive_task_stream.py").path,
            "--base", cluster.dashboard, "--token", try XCTUnwrap(cluster.dashboardToken), "--workers", "w1,w2",
            "--stages", "download,decode,filter,encode", "--screenshots", screenshots.path, "--timeout", "60",
        ], timeout: 180)
        XCTAssertEqual(driver.status, 0, driver.output)
        let line = try XCTUnwrap(driver.output.split(separator: "\n").last { $0.hasPrefix("{") }, driver.output)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let selected = try XCTUnwrap(report["selected"] as? [String: [String: Any]])
        XCTAssertEqual(Set(selected.keys), ["w1", "w2"], "\(report)")
        for (worker, bar) in selected {
            XCTAssertEqual(bar["worker"] as? String, worker)
            let text = bar["text"] as? String ?? ""
            XCTAssertTrue(text.contains("Photo") && text.contains("Took") && text.contains(bar["name"] as? String ?? "?"), text)
        }
        XCTAssertEqual(submit.finish(timeout: 120).status, 1, "the job ended, with its one missing photo failed")
        print("Task stream screenshot: \(screenshots.path)/task-stream.png")
    }
}
