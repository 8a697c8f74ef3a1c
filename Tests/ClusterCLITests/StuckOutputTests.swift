import Foundation
import LoopbackHTTP
import PhotoClusterCore
import PhotoClusterTestSupport
import XCTest

/// An output directory whose file system stops answering, as a hung NFS mount does: a FUSE mount
/// (bindfs) whose daemon is stopped with SIGSTOP, so every call into it blocks in the kernel.
/// The photos whose files cannot be written fail after --write-timeout with a reason, the job
/// ends (without its index), and the coordinator goes on serving.
final class StuckOutputTests: XCTestCase {
    func testAStuckOutputDirectoryFailsItsPhotosAfterTheTimeLimitAndTheJobEnds() throws {
        guard getuid() == 0, FileManager.default.fileExists(atPath: "/dev/fuse"), FileManager.default.isExecutableFile(atPath: "/usr/bin/bindfs") else {
            throw XCTSkip("needs root, /dev/fuse and bindfs (scripts/install-test-tools) to make a mount that stops answering")
        }
        let work = Repository.temporaryDirectory("stuck-output")
        let disk = work.appendingPathComponent("disk")
        let mount = work.appendingPathComponent("mount")
        for directory in [disk, mount] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        // In the foreground (-f), so the test holds the daemon's pid.
        let daemon = try ChildProcess("/usr/bin/bindfs", ["-f", disk.path, mount.path], output: work.appendingPathComponent("bindfs.log"))
        let clock = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("clock.jpg"))
        // The first photo at once; each other one takes about 1.5 s, so they are all still on
        // their way when the mount stops, however busy the machine is.
        let served = LockedBox(0)
        let server = try LoopbackHTTPServer { _ in
            let first = served.withLock { count in
                count += 1
                return count == 1
            }
            return HTTPResponse(body: clock, trickle: first ? nil : (chunk: 400, interval: 0.02))
        }
        let base = LoopbackPorts.consecutive(2)
        var processes: [RunningCommand] = []
        defer {
            // Let the blocked calls finish, then take the mount away.
            daemon.send(signal: SIGCONT)
            for process in processes { process.stop() }
            _ = try? Tool.run("/usr/bin/fusermount", ["-u", mount.path])
            if !daemon.waitForExit(timeout: 5) { daemon.killAndReap() }
            server.stop()
            try? FileManager.default.removeItem(at: work)
        }
        XCTAssertTrue(eventually { ((try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? "").contains(mount.path) }, "bindfs mounted")

        let workerEndpoint = "tcp://127.0.0.1:\(base)"
        let clientEndpoint = "tcp://127.0.0.1:\(base + 1)"
        let coordinator = try CommandRunner.start([
            "coordinator", "--insecure", "--bind", workerEndpoint, "--client-bind", clientEndpoint, "--heartbeat-ms", "200",
            "--write-timeout", "1", "--metrics-bind", "off", "--http", "off", "--output-root", work.path,
        ])
        processes.append(coordinator)
        processes.append(try CommandRunner.start(["worker", "--insecure", "--coordinator", workerEndpoint, "--concurrency", "1", "--metrics-bind", "off"]))
        XCTAssertTrue(eventually(timeout: 15) { coordinator.stderrSoFar.contains("joined") }, coordinator.stderrSoFar)

        let manifest = work.appendingPathComponent("photos.txt")
        try (0..<8).map { "\(server.baseURL)/p\($0).jpg" }.joined(separator: "\n").write(to: manifest, atomically: true, encoding: .utf8)
        let submit = try CommandRunner.start(["submit", manifest.path, "--coordinator", clientEndpoint, "--out", mount.appendingPathComponent("out").path, "--json"])
        processes.append(submit)
        // The first photo went through the mount and the coordinator counts it done: a file seen
        // on the disk under the mount may still wait for its directory's flush, which would block.
        XCTAssertTrue(eventually(timeout: 20) {
            let status = try? CommandRunner.run(["status", "--coordinator", clientEndpoint, "--json"], timeout: 5)
            let reply = (try? JSONSerialization.jsonObject(with: Data((status?.stdout ?? "").utf8))) as? [String: Any]
            let jobs = reply?["jobs"] as? [[String: Any]] ?? []
            return jobs.contains { (($0["progress"] as? [String: Any])?["succeeded"] as? Int ?? 0) >= 1 }
        }, "a photo was written before the mount stopped")
        daemon.send(signal: SIGSTOP)

        let result = submit.finish(timeout: 40)
        XCTAssertEqual(result.status, 1, "some photos failed: \(result.stderr)")
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        let failed = try XCTUnwrap(report["failed"] as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(report["succeeded"] as? Int ?? 0, 1)
        XCTAssertFalse(failed.isEmpty, result.stdout)
        for photo in failed {
            XCTAssertEqual(photo["stage"] as? String, "write", "\(photo)")
            XCTAssertTrue((photo["error"] as? String)?.contains("within 1 s (is its file system stuck") == true, "\(photo)")
        }
        XCTAssertTrue(coordinator.stderrSoFar.contains("index.json was not written"), coordinator.stderrSoFar)
        let status = try CommandRunner.run(["status", "--coordinator", clientEndpoint], timeout: 10)
        XCTAssertEqual(status.status, 0, "the coordinator still answers: \(status.stderr)")
    }
}
