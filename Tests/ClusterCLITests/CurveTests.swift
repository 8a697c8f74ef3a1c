import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// CURVE between processes: only listed keys join or submit; without keys, TCP needs --insecure.
final class CurveTests: XCTestCase {
    func testOnlyAuthorizedWorkersAndClientsGetIn() throws {
        let server = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        let work = Repository.temporaryDirectory("curve")
        var processes: [RunningCommand] = []
        defer {
            for process in processes { process.stop() }
            server.stop()
            try? FileManager.default.removeItem(at: work)
        }
        let keys = work.appendingPathComponent("keys")
        let trusted = work.appendingPathComponent("trusted")
        try FileManager.default.createDirectory(at: trusted, withIntermediateDirectories: true)
        for name in ["coordinator", "worker", "client", "intruder"] {
            let made = try CommandRunner.run(["keygen", "--name", name, "--out", keys.path])
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        XCTAssertEqual(try CommandRunner.run(["keygen", "--name", "worker", "--out", keys.path]).status, 1, "existing keys are not replaced")
        for name in ["worker", "client"] {
            try FileManager.default.copyItem(at: keys.appendingPathComponent("\(name).pub"), to: trusted.appendingPathComponent("\(name).pub"))
        }
        func key(_ name: String, _ ext: String) -> String { keys.appendingPathComponent("\(name).\(ext)").path }
        func publicKey(_ name: String) throws -> String {
            let text = try String(contentsOfFile: key(name, "pub"), encoding: .utf8)
            return try XCTUnwrap(text.split(separator: "\"").dropFirst().first.map(String.init))
        }

        let base = LoopbackPorts.consecutive(2)
        let workerEndpoint = "tcp://127.0.0.1:\(base)", clientEndpoint = "tcp://127.0.0.1:\(base + 1)"
        // Plain TCP without keys must be asked for.
        let refused = try CommandRunner.run(["coordinator", "--bind", workerEndpoint, "--client-bind", clientEndpoint])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("--insecure"), refused.stderr)

        let coordinator = try CommandRunner.start([
            "coordinator", "--bind", workerEndpoint, "--client-bind", clientEndpoint,
            "--curve-secret", key("coordinator", "key"), "--authorized-keys", trusted.path, "--output-root", work.path,
        ])
        processes.append(coordinator)
        let curveFor = { (name: String) in ["--curve-secret", key(name, "key"), "--coordinator-key", key("coordinator", "pub")] }
        processes.append(try CommandRunner.start(["worker", "--coordinator", workerEndpoint, "--id", "good"] + curveFor("worker")))
        let intruder = try CommandRunner.start(["worker", "--coordinator", workerEndpoint, "--id", "bad"] + curveFor("intruder"))
        processes.append(intruder)
        let plain = try CommandRunner.start(["worker", "--coordinator", workerEndpoint, "--id", "plain", "--insecure"])
        processes.append(plain)
        XCTAssertTrue(eventually(timeout: 15) { coordinator.stderrSoFar.contains("worker good joined") }, coordinator.stderrSoFar)
        XCTAssertTrue(eventually(timeout: 10) { intruder.stderrSoFar.contains("refused this worker's key") }, intruder.stderrSoFar)
        XCTAssertTrue(coordinator.stderrSoFar.contains("refused a worker connection from 127.0.0.1: key \(try publicKey("intruder")) is not in the authorized keys"),
                      coordinator.stderrSoFar)
        // Keys listed without a role (as before roles) still get in as workers and clients, with a warning.
        XCTAssertTrue(coordinator.stderrSoFar.contains("has no role, so it may join as a worker and submit as a client"), coordinator.stderrSoFar)

        let manifest = work.appendingPathComponent("photos.txt")
        try "\(server.baseURL)/clock.jpg\n\(server.baseURL)/coins.jpg\n".write(to: manifest, atomically: true, encoding: .utf8)
        let submit = try CommandRunner.run(["submit", manifest.path, "--coordinator", clientEndpoint, "--out", work.appendingPathComponent("out").path, "--json"] + curveFor("client"))
        XCTAssertEqual(submit.status, 0, submit.stderr)
        XCTAssertTrue(submit.stdout.contains("\"succeeded\" : 2"), submit.stdout)

        let status = try CommandRunner.run(["status", "--coordinator", clientEndpoint, "--json"] + curveFor("client"))
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("\"good\""), status.stdout)
        XCTAssertFalse(status.stdout.contains("\"bad\""), "the intruder never joined")
        XCTAssertFalse(status.stdout.contains("\"plain\""), "a worker without keys never joined")

        let stranger = try CommandRunner.run(["status", "--coordinator", clientEndpoint] + curveFor("intruder"), timeout: 40)
        XCTAssertEqual(stranger.status, 1, "a client without an authorized key cannot talk to the coordinator")
        XCTAssertEqual(server.requestCount, 2)
    }
}
