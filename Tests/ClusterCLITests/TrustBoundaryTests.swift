import Foundation
import PhotoClusterTestSupport
import XCTest

/// Who may do what, with a real coordinator process and real CURVE keys by role: each refusal
/// says why, and leaves nothing written.
final class TrustBoundaryTests: XCTestCase {
    func testEachKeyConnectsOnlyInItsRole() throws {
        let cluster = try SecuredCluster(label: "roles", roles: ["w1": "worker", "alice": "client"])
        defer { cluster.stop() }
        let alice = try cluster.publicKey("alice"), w1 = try cluster.publicKey("w1")

        // A client key registering as a worker.
        let impostor = try cluster.startWorker("alice")
        XCTAssertTrue(eventually(timeout: 10) { impostor.stderrSoFar.contains("the coordinator refused this worker's key \(alice)") }, impostor.stderrSoFar)
        XCTAssertTrue(cluster.coordinator.stderrSoFar.contains(
            "refused a worker connection from 127.0.0.1: key \(alice) (alice) is a client key; only worker keys may connect as a worker"),
            cluster.coordinator.stderrSoFar)
        let worker = try cluster.startWorker("w1")
        XCTAssertTrue(eventually(timeout: 10) { cluster.coordinator.stderrSoFar.contains("worker w1 joined") }, worker.stderrSoFar)

        // A worker key submitting: refused at the handshake, with the reason, and nothing written.
        let submit = try cluster.run(["submit", try cluster.manifest(count: 2).path, "--out", "w1-out"], as: "w1")
        XCTAssertEqual(submit.status, 1, submit.stdout)
        XCTAssertTrue(submit.stderr.contains("refused this client's key \(w1): it is not authorized as a client"), submit.stderr)
        XCTAssertTrue(cluster.coordinator.stderrSoFar.contains(
            "refused a client connection from 127.0.0.1: key \(w1) (w1) is a worker key; only client or admin keys may connect as a client"),
            cluster.coordinator.stderrSoFar)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cluster.root.appendingPathComponent("w1-out").path))
        XCTAssertEqual(cluster.photos.requestCount, 0)

        let status = try cluster.run(["status", "--json"], as: "alice")
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("\"w1\""), status.stdout)
        XCTAssertFalse(status.stdout.contains("\"alice\""), "the impostor never joined: \(status.stdout)")
    }

    func testAJobBelongsToTheKeyThatSubmittedIt() throws {
        let cluster = try SecuredCluster(label: "ownership", roles: ["alice": "client", "bob": "client", "boss": "admin"])
        defer { cluster.stop() }
        let job = try cluster.openJob(as: "alice")
        let bob = try cluster.publicKey("bob")

        for command in [["cancel", job], ["suspend", job], ["viewport", job, "--visible", "1..2"], ["status", job]] {
            let refused = try cluster.run(command, as: "bob")
            XCTAssertEqual(refused.status, 1, "\(command): \(refused.stdout)")
            XCTAssertTrue(refused.stderr.contains("job \(job) belongs to another client: only the client that submitted it and admin keys may see it or act on it"),
                          "\(command): \(refused.stderr)")
        }
        let bobsView = try cluster.run(["status", "--json"], as: "bob")
        XCTAssertEqual(bobsView.status, 0, bobsView.stderr)
        XCTAssertFalse(bobsView.stdout.contains(job), "bob does not see alice's job: \(bobsView.stdout)")
        XCTAssertTrue(cluster.coordinator.stderrSoFar.contains("refused a request about job \(job) from key \(bob) (bob, client)"), cluster.coordinator.stderrSoFar)

        // Nothing bob asked for happened: alice's job is open, neither suspended nor moved.
        let alicesView = try cluster.run(["status", job, "--json"], as: "alice")
        XCTAssertEqual(alicesView.status, 0, alicesView.stderr)
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(alicesView.stdout.utf8)) as? [String: Any])
        let jobSummary = try XCTUnwrap((summary["jobs"] as? [[String: Any]])?.first, alicesView.stdout)
        XCTAssertEqual(jobSummary["phase"] as? String, "JOB_PHASE_IN_PROGRESS", alicesView.stdout)
        XCTAssertNil(jobSummary["suspended"], alicesView.stdout)
        XCTAssertNil((jobSummary["viewport"] as? [String: Any])?["visibleStart"], alicesView.stdout)

        // The journal keeps the owner: a restarted coordinator does not open the job to all.
        try cluster.restartCoordinator()
        XCTAssertEqual(try cluster.run(["status", job], as: "bob").status, 1)
        XCTAssertEqual(try cluster.run(["status", job], as: "alice").status, 0)

        // An admin may act on every job.
        let cancelled = try cluster.run(["cancel", job], as: "boss")
        XCTAssertEqual(cancelled.status, 0, cancelled.stderr)
    }

    func testARemovedKeyIsRefusedAfterSIGHUPWithoutARestart() throws {
        let cluster = try SecuredCluster(label: "reload", roles: ["w1": "worker", "alice": "client", "boss": "admin"])
        defer { cluster.stop() }
        let worker = try cluster.startWorker("w1")
        XCTAssertTrue(eventually(timeout: 10) { cluster.coordinator.stderrSoFar.contains("worker w1 joined") }, cluster.coordinator.stderrSoFar)
        XCTAssertEqual(try cluster.run(["status"], as: "alice").status, 0)
        let alice = try cluster.publicKey("alice"), w1 = try cluster.publicKey("w1")

        let alicePub = cluster.trusted.appendingPathComponent("client/alice.pub"), kept = cluster.work.appendingPathComponent("alice.pub")
        try FileManager.default.moveItem(at: alicePub, to: kept)
        try FileManager.default.removeItem(at: cluster.trusted.appendingPathComponent("worker/w1.pub"))
        cluster.coordinator.process.send(signal: SIGHUP)
        XCTAssertTrue(eventually(timeout: 10) { cluster.coordinator.stderrSoFar.contains("authorized keys reloaded: 0 added, 2 removed") }, cluster.coordinator.stderrSoFar)
        XCTAssertTrue(cluster.coordinator.stderrSoFar.contains("reloading the authorized keys (SIGHUP)"), cluster.coordinator.stderrSoFar)
        XCTAssertTrue(cluster.coordinator.stderrSoFar.contains("worker w1 lost (key \(w1) is not in the authorized keys; its connection is dropped)"),
                      cluster.coordinator.stderrSoFar)

        let refused = try cluster.run(["status"], as: "alice")
        XCTAssertEqual(refused.status, 1, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("refused this client's key \(alice)"), refused.stderr)
        // The worker's connection was dropped, and its reconnection is refused.
        XCTAssertTrue(eventually(timeout: 15) { worker.stderrSoFar.contains("the coordinator refused this worker's key \(w1)") }, worker.stderrSoFar)
        let workers = try cluster.run(["status", "--json"], as: "boss")
        XCTAssertFalse(workers.stdout.contains("\"w1\""), workers.stdout)
        XCTAssertTrue(cluster.coordinator.process.isRunning, "no restart")

        // A key file that changes is read again without a signal.
        try FileManager.default.moveItem(at: kept, to: alicePub)
        XCTAssertTrue(eventually(timeout: 10) { cluster.coordinator.stderrSoFar.contains("reloading the authorized keys (a key file changed)") },
                      cluster.coordinator.stderrSoFar)
        XCTAssertTrue(eventually(timeout: 5) { cluster.coordinator.stderrSoFar.contains("authorized keys reloaded: 1 added, 0 removed") })
        let readmitted = try cluster.run(["status"], as: "alice")
        XCTAssertEqual(readmitted.status, 0, readmitted.stderr + "\n--- coordinator ---\n" + cluster.coordinator.stderrSoFar)
    }

    func testOutputsStayUnderTheOutputRoot() throws {
        let cluster = try SecuredCluster(label: "output-root", roles: ["alice": "client"])
        defer { cluster.stop() }
        let rootPath = try XCTUnwrap(realpath(cluster.root.path, nil).map { pointer in defer { free(pointer) }; return String(cString: pointer) })

        // `..` that climbs out of the root (root/../../etc is beside the test's directory).
        let climbing = try cluster.run(["submit", try cluster.manifest(count: 1).path, "--out", "../../etc"], as: "alice")
        XCTAssertEqual(climbing.status, 2, climbing.stdout)
        XCTAssertTrue(climbing.stderr.contains("the output directory ../../etc leaves the coordinator's output root \(rootPath): it climbs out of it with '..'"),
                      climbing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cluster.work.deletingLastPathComponent().appendingPathComponent("etc").path))

        // An absolute path elsewhere.
        let elsewhere = try cluster.run(["submit", try cluster.manifest(count: 1).path, "--out", cluster.work.appendingPathComponent("elsewhere").path], as: "alice")
        XCTAssertEqual(elsewhere.status, 2, elsewhere.stdout)
        XCTAssertTrue(elsewhere.stderr.contains("leaves the coordinator's output root \(rootPath): it is not inside it"), elsewhere.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cluster.work.appendingPathComponent("elsewhere").path))

        // A link inside the root to a directory outside it.
        let outside = cluster.work.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: cluster.root.appendingPathComponent("link"), withDestinationURL: outside)
        let linked = try cluster.run(["submit", try cluster.manifest(count: 1).path, "--out", "link/photos"], as: "alice")
        XCTAssertEqual(linked.status, 2, linked.stdout)
        XCTAssertTrue(linked.stderr.contains("the output directory link/photos leaves the coordinator's output root \(rootPath): \(rootPath)/link is a link to"),
                      linked.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside.path), [], "nothing written through the link")
        XCTAssertEqual(cluster.photos.requestCount, 0, "no refused job ran")
        let metrics = try HTTP.text(cluster.metrics + "/metrics")
        XCTAssertEqual(sample(#"photocluster_refused_requests_total{reason="output_root"}"#, in: metrics), 3, metrics)

        // Inside the root: relative to it, or absolute.
        _ = try cluster.openJob(as: "alice", out: "albums/2026")
        XCTAssertTrue(FileManager.default.fileExists(atPath: cluster.root.appendingPathComponent("albums/2026").path))
        _ = try cluster.openJob(as: "alice", out: cluster.root.appendingPathComponent("absolute").path)
        XCTAssertTrue(FileManager.default.fileExists(atPath: cluster.root.appendingPathComponent("absolute").path))
    }

    func testCoordinatorLimitsNameTheOptionThatChangesThem() throws {
        let cluster = try SecuredCluster(
            label: "limits", roles: ["alice": "client"],
            coordinatorArguments: ["--max-photos-per-job", "3", "--max-open-jobs-per-client", "1", "--max-manifest-mb", "1"])
        defer { cluster.stop() }
        let tooMany = try cluster.run(["submit", try cluster.manifest(count: 4).path, "--visible", "0..0"], as: "alice")
        XCTAssertEqual(tooMany.status, 2, tooMany.stdout)
        XCTAssertTrue(tooMany.stderr.contains("the job has 4 photos; this coordinator takes at most 3 per job (cluster coordinator --max-photos-per-job)"), tooMany.stderr)

        // 200 photos of 8,000-character URLs: 1.6 MB, over the manifest limit before the photo limit.
        let long = cluster.work.appendingPathComponent("long.txt")
        let padding = String(repeating: "p", count: 7_900)
        try (0..<200).map { "\(cluster.photos.baseURL)/\(padding)/p\($0).jpg" }.joined(separator: "\n").write(to: long, atomically: true, encoding: .utf8)
        let large = try cluster.run(["submit", long.path, "--visible", "0..0"], as: "alice")
        XCTAssertEqual(large.status, 2, large.stdout)
        XCTAssertTrue(large.stderr.contains("takes at most 1.0 MiB per job (cluster coordinator --max-manifest-mb)"), large.stderr)

        _ = try cluster.openJob(as: "alice", count: 2)
        let second = try cluster.run(["submit", try cluster.manifest(count: 2).path, "--visible", "0..0"], as: "alice")
        XCTAssertEqual(second.status, 1, second.stdout)
        XCTAssertTrue(second.stderr.contains("this client already has 1 open jobs, the most a client may have (cluster coordinator --max-open-jobs-per-client)"),
                      second.stderr)
        XCTAssertEqual(cluster.photos.requestCount, 0)
    }
}
