import Foundation
import PhotoClusterTestSupport
import XCTest

/// The requests the dashboard's pages make: its own JSON (the overview, a job's photos, the
/// history), and the HTTP API's viewport (which suspends, cancels out-of-view work and
/// reprioritises like `cluster viewport`) and outputs, with clear errors. The private routes the
/// API replaced are gone.
final class DashboardAPITests: XCTestCase {
    func testViewportPostedByThePageSteersTheJob() throws {
        let cluster = try ObservedCluster(label: "dashboard-api", photoDelay: 0.4)
        defer { cluster.stop() }
        let job = try cluster.submitViewportJob(count: 40, visible: "0..3", prefetch: 2)
        let api = cluster.dashboard + "/api/jobs/\(job)"
        let v1 = cluster.dashboard + "/v1/jobs/\(job)"

        let overview = try HTTP.json(cluster.dashboard + "/api/overview")
        let listed = (overview["jobs"] as? [[String: Any]])?.first { $0["id"] as? String == job }
        XCTAssertEqual(listed?["total"] as? Int, 40, "\(overview)")
        XCTAssertEqual((overview["workers"] as? [[String: Any]])?.first?["id"] as? String, "w1")
        // The worker's resident memory, from its heartbeats, on the page and in the HTTP API.
        func resident(_ url: String) -> Int { ((try? HTTP.json(url))?["workers"] as? [[String: Any]])?.first?["residentBytes"] as? Int ?? 0 }
        XCTAssertTrue(eventually(timeout: 10) { resident(cluster.dashboard + "/api/overview") > 1 << 20 }, "the overview's worker has its resident memory")
        XCTAssertGreaterThan(resident(cluster.dashboard + "/v1/workers"), 1 << 20, "the HTTP API's worker has its resident memory")
        XCTAssertGreaterThan(overview["residentBytes"] as? Int ?? 0, 1 << 20, "the coordinator's own: \(overview)")
        // The cluster at a glance, as `cluster status` heads it: one worker, the job's photos
        // in flight at its stages or waiting at the coordinator, throughput over two windows.
        let status = try HTTP.json(cluster.dashboard + "/v1/status")
        XCTAssertEqual(status["coordinatorId"] as? String, overview["coordinatorId"] as? String, "\(status)")
        XCTAssertEqual(status["workers"] as? Int, 1, "\(status)")
        XCTAssertGreaterThan(status["residentBytes"] as? Int ?? 0, 1 << 20, "\(status)")
        XCTAssertGreaterThan(status["uptimeSeconds"] as? Double ?? 0, 0, "\(status)")
        let stages = try XCTUnwrap(status["stages"] as? [String: Int], "\(status)")
        XCTAssertEqual(Set(stages.keys), ["download", "decode", "filter", "encode"])
        XCTAssertGreaterThan(stages.values.reduce(0, +) + (status["queued"] as? Int ?? 0), 0, "the job's photos are somewhere: \(status)")
        XCTAssertEqual((status["throughput"] as? [String: Double])?.count, 4, "\(status)")
        XCTAssertNil(status["leader"], "a coordinator without a shared journal leads alone: \(status)")
        XCTAssertTrue(eventually(timeout: 10) { ((try? HTTP.json(api))?["inFlight"] as? Int ?? 0) > 0 }, "photos in view start")

        // While the user scrolls the job is suspended everywhere.
        let scrolling = try HTTP.post(v1 + "/viewport", json: ["visibleStart": 30, "visibleEnd": 33, "prefetch": 0, "scrolling": true])
        XCTAssertEqual(scrolling.status, 200, String(decoding: scrolling.body, as: UTF8.self))
        let answer = try JSONSerialization.jsonObject(with: scrolling.body) as? [String: Any]
        XCTAssertEqual(answer?["id"] as? String, job, "the API's Job: \(String(describing: answer))")
        XCTAssertEqual((answer?["counts"] as? [String: Any])?["total"] as? Int, 40)
        // Paths as written: JSON allows "\/", but a reader with curl should not have to undo it.
        let raw = String(decoding: try HTTP.get(v1).body, as: UTF8.self)
        XCTAssertTrue(raw.contains(#""output" : "/"#) && !raw.contains(#"\/"#), raw)
        XCTAssertEqual(try cluster.status(of: job)["suspended"] as? Bool, true)

        // Settled: photos in flight outside 30..33 are cancelled where they run, 30..33 start.
        let settled = try HTTP.post(v1 + "/viewport", json: ["visibleStart": 30, "visibleEnd": 33, "prefetch": 0, "scrolling": false])
        XCTAssertEqual(settled.status, 200)
        let summary = try cluster.status(of: job)
        let viewport = summary["viewport"] as? [String: Any]
        XCTAssertEqual(viewport?["visibleStart"] as? Int, 30, "\(summary)")
        XCTAssertEqual(viewport?["visibleEnd"] as? Int, 33)
        XCTAssertNotEqual(summary["suspended"] as? Bool, true)
        let parked = ((summary["photos"] as? [[String: Any]]) ?? []).filter { $0["reason"] as? String == "left the viewport" }
        XCTAssertFalse(parked.isEmpty, "photos in flight out of view were cancelled: \(summary)")
        let metrics = try HTTP.text(cluster.coordinatorMetrics + "/metrics")
        XCTAssertEqual(sample(#"photocluster_cancellations_total{reason="viewport"}"#, in: metrics), Double(parked.count), metrics)

        func photo(_ index: Int) -> [String: Any]? {
            ((try? HTTP.json(api))?["photos"] as? [[String: Any]])?.first { $0["index"] as? Int == index }
        }
        XCTAssertTrue(eventually(timeout: 20) { photo(30)?["state"] as? String == "done" }, "\(photo(30) ?? [:])")
        // The thumbnail the page shows: the photo's output, by its name, retried with ?attempt=.
        let image = try HTTP.get(v1 + "/photos/p30/output?attempt=1")
        XCTAssertEqual(image.status, 200)
        XCTAssertTrue(image.body.starts(with: [0xFF, 0xD8]) || image.body.starts(with: [0x89, 0x50]), "a JPEG or PNG")

        XCTAssertEqual(try HTTP.get(v1 + "/photos/p39/output").status, 404, "not done yet")
        XCTAssertEqual(try HTTP.get(cluster.dashboard + "/api/jobs/job-none").status, 404)
        let outside = try HTTP.post(v1 + "/viewport", json: ["visibleStart": 50, "visibleEnd": 60])
        XCTAssertEqual(outside.status, 400)
        XCTAssertTrue(String(decoding: outside.body, as: UTF8.self).contains("outside the job's photos 0..39"))
        XCTAssertEqual(try HTTP.post(v1 + "/viewport", json: ["visible": "all"]).status, 400)
        // The dashboard's own viewport and image routes are gone: the API's are the only ones.
        XCTAssertEqual(try HTTP.post(api + "/viewport", json: ["visibleStart": 0, "visibleEnd": 1]).status, 404)
        XCTAssertEqual(try HTTP.get(api + "/photos/30/image").status, 404)

        // The pages and assets are the files in Web/, compiled into the binary.
        let web = Repository.root.appendingPathComponent("Sources/PhotoClusterDashboard/Web")
        func file(_ name: String) throws -> String { try String(contentsOf: web.appendingPathComponent(name), encoding: .utf8) }
        XCTAssertEqual(try HTTP.text(cluster.dashboard + "/"), try file("overview.html"))
        XCTAssertEqual(try HTTP.text(cluster.dashboard + "/jobs/\(job)"), try file("job.html"))
        let assets = try FileManager.default.contentsOfDirectory(atPath: web.path).filter { !$0.hasSuffix(".html") }
        XCTAssertEqual(assets.count, 8, "\(assets)")
        for name in assets {
            XCTAssertEqual(try HTTP.text(cluster.dashboard + "/assets/\(name)"), try file(name), name)
        }
        XCTAssertEqual(try HTTP.get(cluster.dashboard + "/assets/nope.js").status, 404)
        XCTAssertEqual(sample("photocluster_workers_connected", in: try HTTP.text(cluster.dashboard + "/metrics")), 1)
        XCTAssertTrue(eventually(timeout: 5) {
            sample("photocluster_resident_bytes", in: (try? HTTP.text(cluster.dashboard + "/metrics")) ?? "") ?? 0 > Double(1 << 20)
        }, "the coordinator's resident memory, set once a second")
        XCTAssertTrue(eventually(timeout: 5) {
            let samples = (try? HTTP.json(cluster.dashboard + "/api/history"))?["samples"] as? [[String: Any]] ?? []
            return samples.contains { ($0["photosPerSecond"] as? Double ?? 0) > 0 && ($0["workers"] as? [String: Any])?["w1"] != nil }
        }, "a sample per second, with the worker's photos")
    }
}
