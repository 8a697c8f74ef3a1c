import Foundation
import PhotoClusterTestSupport
import XCTest

/// One coordinator host and worker hosts on one machine (network namespaces joined by veth
/// pairs), over CURVE: a worker host's link goes down mid-job and its photos are requeued; a
/// host added mid-job takes work.
final class MultiHostTests: XCTestCase {
    private var lab: NetworkLab!
    private var processes: [RunningCommand] = []
    private var work: URL!

    override func setUpWithError() throws {
        lab = try NetworkLab()
        work = Repository.temporaryDirectory("hosts")
        try lab.addHost("coord", octet: 1)
        for index in 1...4 { try lab.addHost("w\(index)", octet: 10 + index) }
    }

    override func tearDown() {
        for process in processes { process.stop() }
        lab?.tearDown()
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    private func start(on host: String, _ arguments: [String]) throws -> RunningCommand {
        let process = try RunningCommand(binary: NetworkLab.ipTool, arguments: lab.command(on: host, arguments))
        processes.append(process)
        return process
    }

    private func cluster(on host: String, _ arguments: [String]) throws -> RunningCommand {
        guard FileManager.default.isExecutableFile(atPath: Repository.clusterBinary.path) else {
            throw XCTSkip("\(Repository.clusterBinary.path) is missing: `make test` builds it first")
        }
        return try start(on: host, [Repository.clusterBinary.path] + arguments)
    }

    func testJobsSurviveALostHostAndUseANewOne() throws {
        let keys = work.appendingPathComponent("keys"), trusted = work.appendingPathComponent("trusted")
        for role in ["worker", "client"] {
            try FileManager.default.createDirectory(at: trusted.appendingPathComponent(role), withIntermediateDirectories: true)
        }
        for name in ["coordinator", "client", "w1", "w2", "w3", "w4"] {
            XCTAssertEqual(try CommandRunner.run(["keygen", "--name", name, "--out", keys.path]).status, 0)
            if name != "coordinator" {
                let role = name == "client" ? "client" : "worker"
                try FileManager.default.copyItem(at: keys.appendingPathComponent("\(name).pub"), to: trusted.appendingPathComponent("\(role)/\(name).pub"))
            }
        }
        let coordinatorAddress = lab.hosts["coord"]!
        let photoServer = try start(on: "coord", ["python3", "-m", "http.server", "8000", "--bind", coordinatorAddress, "--directory", Repository.samplePhotos.path])
        let coordinator = try cluster(on: "coord", [
            "coordinator", "--bind", "tcp://\(coordinatorAddress):7000", "--client-bind", "tcp://\(coordinatorAddress):7001",
            "--heartbeat-ms", "200", "--liveness", "10",
            "--curve-secret", keys.appendingPathComponent("coordinator.key").path, "--authorized-keys", trusted.path, "--output-root", work.path,
        ])
        func curve(_ name: String) -> [String] {
            ["--curve-secret", keys.appendingPathComponent("\(name).key").path, "--coordinator-key", keys.appendingPathComponent("coordinator.pub").path]
        }
        func startWorker(_ name: String) throws {
            _ = try cluster(on: name, ["worker", "--coordinator", "tcp://\(coordinatorAddress):7000", "--concurrency", "1", "--id", name] + curve(name))
        }
        for name in ["w1", "w2", "w3"] { try startWorker(name) }
        XCTAssertTrue(eventually(timeout: 20) { coordinator.stderrSoFar.components(separatedBy: " joined from ").count == 4 }, coordinator.stderrSoFar)
        XCTAssertTrue(photoServer.process.isRunning, photoServer.stderrSoFar)
        // Submitting before the server listens would spend the first seconds on retries.
        let probe = "import socket; socket.create_connection(('\(coordinatorAddress)', 8000), 1)"
        XCTAssertTrue(eventually(timeout: 20) { (try? CommandRunner.run(self.lab.command(on: "coord", ["python3", "-c", probe]), viaIP: true).status) == 0 },
                      "the photo server listens: \(photoServer.stderrSoFar)")

        // A blur keeps each photo busy for a while, so the job is mid-way when the link goes.
        func writeManifest(_ name: String, count: Int) throws -> URL {
            let url = work.appendingPathComponent(name)
            let lines = (0..<count).map { "http://\(coordinatorAddress):8000/\(Repository.samplePhotoFiles[$0 % Repository.samplePhotoFiles.count])?n=\($0)" }
            try lines.enumerated().map { "{\"name\": \"p\($0.offset)\", \"url\": \"\($0.element)\"}" }
                .joined(separator: ",\n").wrapped().write(to: url, atomically: true, encoding: .utf8)
            return url
        }
        func submit(_ manifest: URL, out: String) throws -> RunningCommand {
            try cluster(on: "coord", ["submit", manifest.path, "--coordinator", "tcp://\(coordinatorAddress):7001", "--filter", "blur:sigma=6",
                                      "--out", work.appendingPathComponent(out).path, "--json"] + curve("client"))
        }
        func report(_ command: RunningCommand) -> [String: Any] {
            XCTAssertTrue(eventually(timeout: 120) { !command.process.isRunning })
            let result = command.finish()
            XCTAssertEqual(result.status, 0, result.stderr)
            return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
        }
        /// Photos each worker completed, and photos waiting at the coordinator for a worker.
        func status() throws -> (completed: [String: Int], queued: Int) {
            let status = try CommandRunner.run(lab.command(on: "coord", [Repository.clusterBinary.path, "status", "--coordinator", "tcp://\(coordinatorAddress):7001", "--json"] + curve("client")), viaIP: true)
            let reply = (try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]) ?? [:]
            let workers = (reply["workers"] as? [[String: Any]]) ?? []
            let completed = Dictionary(uniqueKeysWithValues: workers.map { ($0["workerId"] as? String ?? "?", Int($0["completed"] as? String ?? "0") ?? 0) })
            return (completed, reply["queued"] as? Int ?? 0)
        }
        func completed() throws -> [String: Int] { try status().completed }
        // A job's photos queue at the coordinator while every worker holds all it has credit for:
        // with many still queued, w1 surely holds photos when its link goes, and a job is far
        // from its end when a host joins (a job of 90 takes the three workers a few seconds).
        let photos = 90

        // Run 1: w1's link goes down mid-job.
        let first = try submit(try writeManifest("first.json", count: photos), out: "first")
        XCTAssertTrue(eventually(timeout: 30) { (try? self.midJob(status(), worker: "w1", completedAtLeast: 1)) == true },
                      "w1 took part, and the job was far from its end, before its link went down")
        try lab.unplug("w1")
        let firstReport = report(first)
        XCTAssertEqual(firstReport["succeeded"] as? Int, photos)
        XCTAssertTrue(coordinator.stderrSoFar.contains("worker w1 lost"), coordinator.stderrSoFar)
        XCTAssertNotNil(coordinator.stderrSoFar.range(of: #"worker w1 lost \(no heartbeat[^)]*\); [1-9]"#, options: .regularExpression), "w1's photos were requeued: \(coordinator.stderrSoFar)")

        // Run 2: a fourth host joins mid-job and takes work.
        let doneByW2 = try completed()["w2"] ?? 0
        let second = try submit(try writeManifest("second.json", count: photos), out: "second")
        XCTAssertTrue(eventually(timeout: 30) { (try? self.midJob(status(), worker: "w2", completedAtLeast: doneByW2 + 1)) == true },
                      "the second job is under way and far from its end")
        try startWorker("w4")
        let secondReport = report(second)
        XCTAssertEqual(secondReport["succeeded"] as? Int, photos)
        XCTAssertGreaterThan(try completed()["w4"] ?? 0, 0, "the new host took work")
    }

    /// `worker` has completed at least `count` photos and a third of a job or more still waits in the queue.
    private func midJob(_ status: (completed: [String: Int], queued: Int), worker: String, completedAtLeast count: Int) -> Bool {
        (status.completed[worker] ?? 0) >= count && status.queued >= 30
    }
}

private extension String {
    func wrapped() -> String { "[\n" + self + "\n]\n" }
}
