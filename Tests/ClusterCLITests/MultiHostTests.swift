import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterTestSupport
import XCTest

/// One coordinator host and worker hosts on one machine (network namespaces joined by veth
/// pairs), over CURVE: a worker host's link goes down mid-job and its photos are requeued; a
/// host added mid-job takes work; outputs go from the workers to an S3 host past a coordinator
/// whose link is capped.
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

    /// Key pairs for `names` in `work/keys`; every one but the coordinator's is authorized, in
    /// its role's directory (the client's as a client, the others as workers).
    private func makeKeys(_ names: [String]) throws {
        let keys = work.appendingPathComponent("keys"), trusted = work.appendingPathComponent("trusted")
        for role in ["worker", "client"] {
            try FileManager.default.createDirectory(at: trusted.appendingPathComponent(role), withIntermediateDirectories: true)
        }
        for name in names {
            XCTAssertEqual(try CommandRunner.run(["keygen", "--name", name, "--out", keys.path]).status, 0)
            if name != "coordinator" {
                let role = name == "client" ? "client" : "worker"
                try FileManager.default.copyItem(at: keys.appendingPathComponent("\(name).pub"), to: trusted.appendingPathComponent("\(role)/\(name).pub"))
            }
        }
    }

    /// A worker's or client's CURVE flags.
    private func curve(_ name: String) -> [String] {
        let keys = work.appendingPathComponent("keys")
        return ["--curve-secret", keys.appendingPathComponent("\(name).key").path, "--coordinator-key", keys.appendingPathComponent("coordinator.pub").path]
    }

    /// The coordinator's CURVE flags.
    private func curveServer() -> [String] {
        ["--curve-secret", work.appendingPathComponent("keys/coordinator.key").path, "--authorized-keys", work.appendingPathComponent("trusted").path]
    }

    private func cluster(on host: String, _ arguments: [String]) throws -> RunningCommand {
        guard FileManager.default.isExecutableFile(atPath: Repository.clusterBinary.path) else {
            throw XCTSkip("\(Repository.clusterBinary.path) is missing: `make test` builds it first")
        }
        return try start(on: host, [Repository.clusterBinary.path] + arguments)
    }

    func testJobsSurviveALostHostAndUseANewOne() throws {
        try makeKeys(["coordinator", "client", "w1", "w2", "w3", "w4"])
        let coordinatorAddress = lab.hosts["coord"]!
        let photoServer = try start(on: "coord", ["python3", "-m", "http.server", "8000", "--bind", coordinatorAddress, "--directory", Repository.samplePhotos.path])
        let coordinator = try cluster(on: "coord", [
            "coordinator", "--bind", "tcp://\(coordinatorAddress):7000", "--client-bind", "tcp://\(coordinatorAddress):7001",
            "--heartbeat-ms", "200", "--liveness", "10",
        ] + curveServer() + ["--output-root", work.path])
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
        XCTAssertNotNil(coordinator.stderrSoFar.range(of: #"worker w1 lost \(no heartbeat[^)]*\); it held [1-9][0-9]* photos?"#, options: .regularExpression), "w1's photos were requeued: \(coordinator.stderrSoFar)")

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

    /// Workers upload outputs straight to S3, a host of its own, past a coordinator whose link
    /// is capped (1 Mbit/s, where the job's outputs would take about 75 s): the coordinator receives a
    /// few hundred bytes per photo, and two worker hosts get through a job about twice as fast as
    /// one, each limited by its own uplink (8 Mbit/s, about 5 photos a second of 197 KB).
    func testS3OutputsBypassTheCoordinatorSoThroughputGrowsWithWorkerHosts() throws {
        try lab.addHost("s3", octet: 2)
        try makeKeys(["coordinator", "client", "w1", "w2"])
        let coordinatorAddress = lab.hosts["coord"]!
        // Noise does not compress: each output is as large as its pixels, whatever the codec.
        let photo = work.appendingPathComponent("noise.png")
        try noisePNG(side: 256).write(to: photo)
        let outputBytes = try Data(contentsOf: photo).count
        let count = 48
        let inputs = ["one", "two"].flatMap { run in (0..<count).map { ("s3://photos/in/\(run)/p\($0).png", photo) } }
        let s3 = try S3TestServer(host: lab.hosts["s3"]!, port: 9000, buckets: ["photos"], objects: inputs,
                                  launcher: [NetworkLab.ipTool.path] + lab.command(on: "s3", []))
        defer { s3.stop() }
        try lab.cap("coord", rate: "1mbit")
        for host in ["w1", "w2"] { try lab.capUplink(host, rate: "8mbit") }

        let environment = ["/usr/bin/env"] + s3.environment()
        let coordinator = try start(on: "coord", environment + [Repository.clusterBinary.path,
            "coordinator", "--bind", "tcp://\(coordinatorAddress):7000", "--client-bind", "tcp://\(coordinatorAddress):7001",
            "--metrics-bind", "off", "--http", "off", "--s3-default-access", "allow"] + curveServer())  // the one client may use any prefix
        func startWorker(_ name: String) throws {
            _ = try start(on: name, environment + [Repository.clusterBinary.path, "worker", "--coordinator", "tcp://\(coordinatorAddress):7000",
                                                   "--concurrency", "3", "--id", name, "--metrics-bind", "off"] + curve(name))
            XCTAssertTrue(eventually(timeout: 20) { coordinator.stderrSoFar.contains("worker \(name) joined") }, coordinator.stderrSoFar)
        }
        /// Runs the photos of `run` to `s3://photos/out/RUN`; the job's seconds and the bytes the coordinator received meanwhile.
        func job(_ run: String) throws -> (seconds: Double, coordinatorReceived: Int) {
            let manifest = work.appendingPathComponent("\(run).txt")
            try (0..<count).map { "s3://photos/in/\(run)/p\($0).png" }.joined(separator: "\n").write(to: manifest, atomically: true, encoding: .utf8)
            let received = try lab.receivedBytes("coord")
            let result = try CommandRunner.run(lab.command(on: "coord", [Repository.clusterBinary.path, "submit", manifest.path,
                "--coordinator", "tcp://\(coordinatorAddress):7001", "--out", "s3://photos/out/\(run)", "--json"] + curve("client")),
                timeout: 120, viaIP: true)
            XCTAssertEqual(result.status, 0, result.stderr)
            let report = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
            XCTAssertEqual(report["succeeded"] as? Int, count, "\(report)")
            return (report["elapsed_seconds"] as? Double ?? .infinity, try lab.receivedBytes("coord") - received)
        }

        try startWorker("w1")
        let one = try job("one")
        try startWorker("w2")
        let two = try job("two")

        let stored = try s3.inspect("s3://photos/out/")
        XCTAssertEqual(stored.objects.count, 2 * (count + 1), "every photo and each job's index.json")
        XCTAssertTrue(stored.objects.filter { !$0.key.hasSuffix("index.json") }.allSatisfy { $0.size >= outputBytes * 9 / 10 }, "\(stored.objects.prefix(3))")
        XCTAssertLessThan(one.coordinatorReceived, count * outputBytes / 20,
                          "the outputs did not pass through the coordinator: it received \(one.coordinatorReceived) bytes for \(count * outputBytes) of outputs")
        let speedup = one.seconds / two.seconds
        // Each host's link is capped: two hosts move twice the bytes (through the coordinator its
        // own link would hold them at ×1). The shared cores' load takes a little of it (×1.77 seen).
        XCTAssertGreaterThanOrEqual(speedup, 1.6, "one worker host: \(one.seconds) s, two: \(two.seconds) s")
        print("S3 sink through a capped coordinator: one worker host \(String(format: "%.2f", one.seconds)) s, two \(String(format: "%.2f", two.seconds)) s (×\(String(format: "%.2f", speedup))); the coordinator received \(one.coordinatorReceived) bytes for \(count * outputBytes) bytes of outputs")
    }

    /// A square PNG of random pixels: it does not compress, so its outputs are as large as it is.
    private func noisePNG(side: Int) throws -> Data {
        let image = try XCTUnwrap(RGBAImage(width: side, height: side))
        var generator = SystemRandomNumberGenerator()
        for offset in 0..<image.byteCount { image.pixels[offset] = offset % 4 == 3 ? 255 : UInt8.random(in: 0...255, using: &generator) }
        return try ImageCodec.encode(image, as: .png)
    }

    /// `worker` has completed at least `count` photos and a third of a job or more still waits in the queue.
    private func midJob(_ status: (completed: [String: Int], queued: Int), worker: String, completedAtLeast count: Int) -> Bool {
        (status.completed[worker] ?? 0) >= count && status.queued >= 30
    }
}

private extension String {
    func wrapped() -> String { "[\n" + self + "\n]\n" }
}
