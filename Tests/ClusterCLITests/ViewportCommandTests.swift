import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// The viewport commands as a user runs them against a coordinator and a worker process.
final class ViewportCommandTests: XCTestCase {
    func testViewportJobFollowsTheCommands() throws {
        let server = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        let work = Repository.temporaryDirectory("viewport-cli")
        var processes: [RunningCommand] = []
        defer {
            for process in processes { process.stop() }
            server.stop()
            try? FileManager.default.removeItem(at: work)
        }
        let base = LoopbackPorts.consecutive(2)
        let clientEndpoint = "tcp://127.0.0.1:\(base + 1)"
        let coordinator = try CommandRunner.start(["coordinator", "--insecure", "--bind", "tcp://127.0.0.1:\(base)", "--client-bind", clientEndpoint, "--output-root", work.path])
        processes.append(coordinator)
        processes.append(try CommandRunner.start(["worker", "--insecure", "--coordinator", "tcp://127.0.0.1:\(base)", "--concurrency", "1", "--id", "only"]))
        XCTAssertTrue(eventually(timeout: 15) { coordinator.stderrSoFar.contains("worker only joined") }, coordinator.stderrSoFar)

        let manifest = work.appendingPathComponent("photos.json")
        let entries = (0..<30).map { ["name": "p\($0)", "url": "\(server.baseURL)/\(Repository.samplePhotoFiles[$0 % Repository.samplePhotoFiles.count])?n=\($0)"] }
        try JSONSerialization.data(withJSONObject: entries).write(to: manifest)
        let out = work.appendingPathComponent("out")

        // Without a coordinator, viewport mode is a usage error: the job could not stay open.
        XCTAssertEqual(try CommandRunner.run(["submit", manifest.path, "--visible", "0..3"]).status, 2)

        let submit = try CommandRunner.run(["submit", manifest.path, "--coordinator", clientEndpoint, "--visible", "0..3", "--prefetch", "1", "--out", out.path])
        XCTAssertEqual(submit.status, 0, submit.stderr)
        let job = submit.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(job.hasPrefix("job-"), submit.stdout)

        func status() throws -> [String: Any] {
            let result = try CommandRunner.run(["status", job, "--coordinator", clientEndpoint, "--json"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let reply = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            return (reply?["jobs"] as? [[String: Any]])?.first ?? [:]
        }
        func doneNames(_ summary: [String: Any]) -> Set<String> {
            Set(((summary["photos"] as? [[String: Any]]) ?? []).filter { $0["state"] as? String == "PHOTO_STATE_DONE" }.compactMap { $0["name"] as? String })
        }
        XCTAssertTrue(eventually(timeout: 15) { (try? doneNames(status()).count) == 5 })
        XCTAssertEqual(try doneNames(status()), ["p0", "p1", "p2", "p3", "p4"], "visible 0..3 plus one prefetched")

        let moved = try CommandRunner.run(["viewport", job, "--visible", "20..21", "--coordinator", clientEndpoint])
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertTrue(moved.stdout.contains("viewport 20..21"), moved.stdout)
        XCTAssertTrue(eventually(timeout: 15) { (try? doneNames(status()).isSuperset(of: ["p20", "p21"])) == true })

        XCTAssertEqual(try CommandRunner.run(["suspend", job, "--coordinator", clientEndpoint]).status, 0)
        XCTAssertEqual(try status()["suspended"] as? Bool, true)
        XCTAssertEqual(try CommandRunner.run(["resume", job, "--coordinator", clientEndpoint]).status, 0)

        let unknown = try CommandRunner.run(["cancel", job, "--photo", "nope", "--coordinator", clientEndpoint])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("no photo named \"nope\""), unknown.stderr)

        let watch = try CommandRunner.start(["watch", job, "--coordinator", clientEndpoint])
        processes.append(watch)
        // `watch` prints the job's line once it is subscribed: the cancel's events reach it.
        XCTAssertTrue(eventually(timeout: 10) { watch.stdoutSoFar.contains("job \(job):") }, watch.stderrSoFar)
        let cancel = try CommandRunner.run(["cancel", job, "--coordinator", clientEndpoint])
        XCTAssertEqual(cancel.status, 0, cancel.stderr)
        XCTAssertTrue(eventually(timeout: 10) { !watch.process.isRunning }, "watch ends with the job")
        let watched = watch.finish()
        XCTAssertTrue(watched.stdout.contains("phase: cancelled"), watched.stdout)
        XCTAssertTrue(watched.stdout.contains("finished:"), watched.stdout)
        XCTAssertEqual(try status()["phase"] as? String, "JOB_PHASE_CANCELLED")
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("index.json").path))
    }
}
