import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// Outputs the workers store themselves, with a coordinator and a worker as separate `cluster`
/// processes over TCP: objects in a real S3-compatible server (moto, checking every signature)
/// and files in a shared directory; `s3://` inputs read with the worker's credentials; a wrong
/// secret failing each photo with a reason that names it and what to do (S3's own text and the
/// key id stay in the worker's log).
final class StorageOutputTests: XCTestCase {
    private var work: URL!
    private var processes: [RunningCommand] = []
    private var s3: S3TestServer?

    override func setUp() { work = Repository.temporaryDirectory("storage") }

    override func tearDown() {
        for process in processes { process.stop() }
        s3?.stop()
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    /// `cluster ARGUMENTS` with `environment` ("NAME=value") added to this process's.
    private func cluster(_ arguments: [String], environment: [String] = []) throws -> RunningCommand {
        guard FileManager.default.isExecutableFile(atPath: Repository.clusterBinary.path) else {
            throw XCTSkip("\(Repository.clusterBinary.path) is missing: `make test` builds it first")
        }
        let process = try RunningCommand(binary: URL(fileURLWithPath: "/usr/bin/env"), arguments: environment + [Repository.clusterBinary.path] + CommandRunner.loopbackAllowed(arguments))
        processes.append(process)
        return process
    }

    /// A coordinator and one worker; the client endpoint.
    private func startCluster(coordinator coordinatorArguments: [String] = [], worker workerArguments: [String] = [],
                              environment: [String] = [], workerEnvironment: [String]? = nil) throws -> String {
        let base = LoopbackPorts.consecutive(2)
        let coordinator = try cluster(["coordinator", "--insecure", "--bind", "tcp://127.0.0.1:\(base)", "--client-bind", "tcp://127.0.0.1:\(base + 1)",
                                       "--metrics-bind", "off", "--http", "off", "--output-root", work.path] + coordinatorArguments, environment: environment)
        _ = try cluster(["worker", "--insecure", "--coordinator", "tcp://127.0.0.1:\(base)", "--id", "w1", "--metrics-bind", "off"] + workerArguments,
                        environment: workerEnvironment ?? environment)
        XCTAssertTrue(eventually(timeout: 20) { coordinator.stderrSoFar.contains("worker w1 joined") }, coordinator.stderrSoFar)
        return "tcp://127.0.0.1:\(base + 1)"
    }

    private func submit(_ manifest: URL, _ arguments: [String], coordinator endpoint: String? = nil) throws -> (status: Int32, report: [String: Any], stderr: String) {
        let result = try CommandRunner.run(["submit", manifest.path, "--json"] + (endpoint.map { ["--coordinator", $0] } ?? []) + arguments, timeout: 120)
        let report = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
        return (result.status, report, result.stderr)
    }

    private func writeManifest(_ urls: [String: String]) throws -> URL {
        let manifest = work.appendingPathComponent("photos-\(UUID().uuidString.prefix(4)).json")
        try JSONSerialization.data(withJSONObject: urls).write(to: manifest)
        return manifest
    }

    private func sha256(_ file: URL) throws -> String {
        let result = try Tool.run("/usr/bin/sha256sum", [file.path])
        return String(result.output.prefix(64))
    }

    func testS3InputsAndOutputsGoBetweenTheWorkersAndS3() throws {
        let photos = Repository.samplePhotoFiles
        s3 = try S3TestServer(buckets: ["originals", "filtered"], objects: photos.map { ("s3://originals/2026/\($0)", Repository.samplePhotos.appendingPathComponent($0)) })
        let s3 = self.s3!
        let endpoint = try startCluster(environment: s3.environment())
        let manifest = try writeManifest(Dictionary(uniqueKeysWithValues: photos.map { ($0, "s3://originals/2026/\($0)") }))

        let run = try submit(manifest, ["--out", "s3://filtered/jobs/first/", "--filter", "sepia"], coordinator: endpoint)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.report["succeeded"] as? Int, photos.count, "\(run.report)")
        let outputs = try XCTUnwrap(run.report["outputs"] as? [[String: Any]])
        XCTAssertEqual(Set(outputs.compactMap { $0["path"] as? String }),
                       Set(photos.map { "s3://filtered/jobs/first/\($0)" }), "every output's place is its object")

        // The same job written by the coordinator into a directory, for the bytes to compare with.
        let local = work.appendingPathComponent("local")
        let reference = try submit(manifest, ["--out", local.path, "--filter", "sepia"], coordinator: endpoint)
        XCTAssertEqual(reference.status, 0, reference.stderr)

        let stored = try s3.inspect("s3://filtered/jobs/first/")
        XCTAssertEqual(stored.objects.map(\.key).sorted(), (photos.map { "jobs/first/\($0)" } + ["jobs/first/index.json"]).sorted())
        for object in stored.objects where object.key != "jobs/first/index.json" {
            let name = String(object.key.dropFirst("jobs/first/".count))
            XCTAssertEqual(object.contentType, name.hasSuffix(".png") ? "image/png" : "image/jpeg", name)
            XCTAssertEqual(object.sha256, try sha256(local.appendingPathComponent(name)), "\(name): the bytes the coordinator would have written")
        }
        XCTAssertEqual(stored.objects.first { $0.key.hasSuffix("index.json") }?.contentType, "application/json")
        XCTAssertEqual(stored.pendingUploads, [])
    }

    func testAWrongSecretFailsEachPhotoSayingWhichAndWhatToCheck() throws {
        let photos = Array(Repository.samplePhotoFiles.prefix(3))
        s3 = try S3TestServer(buckets: ["originals", "filtered"], objects: photos.map { ("s3://originals/\($0)", Repository.samplePhotos.appendingPathComponent($0)) })
        let s3 = self.s3!
        let server = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        defer { server.stop() }
        // The coordinator's credentials are right (it writes index.json); the worker's secret is not.
        let endpoint = try startCluster(environment: s3.environment(), workerEnvironment: s3.environment(secret: "not-the-secret"))

        let reading = try submit(try writeManifest(Dictionary(uniqueKeysWithValues: photos.map { ($0, "s3://originals/\($0)") })),
                                 ["--out", work.appendingPathComponent("out").path], coordinator: endpoint)
        XCTAssertEqual(reading.status, 1, reading.stderr)
        let readFailures = try XCTUnwrap(reading.report["failed"] as? [[String: String]])
        XCTAssertEqual(readFailures.compactMap { $0["name"] }.sorted(), photos.sorted())
        for failure in readFailures {
            XCTAssertEqual(failure["stage"], "download")
            XCTAssertEqual(failure["error"], "s3://originals/\(failure["name"]!) could not be read: access was denied (HTTP 403); ask the operator to check "
                + "the cluster's S3 credentials and their access to it (the node's log has the details)")
        }

        let writing = try submit(try writeManifest(Dictionary(uniqueKeysWithValues: photos.map { ($0, "\(server.baseURL)/\($0)") })),
                                 ["--out", "s3://filtered/refused"], coordinator: endpoint)
        XCTAssertEqual(writing.status, 1, writing.stderr)
        let writeFailures = try XCTUnwrap(writing.report["failed"] as? [[String: String]])
        XCTAssertEqual(writeFailures.count, photos.count)
        for failure in writeFailures {
            XCTAssertEqual(failure["stage"], "upload")
            XCTAssertEqual(failure["error"], "s3://filtered/refused/\(failure["name"]!) could not be written: access was denied (HTTP 403); ask the operator to check "
                + "the cluster's S3 credentials and their access to it (the node's log has the details)")
        }
        // What S3 said, and what to check, is the operator's: in the worker's log, never in a client's report.
        let worker = processes[1].stderrSoFar
        XCTAssertTrue(worker.contains("S3 refused the signature of s3://originals/\(photos[0]) (SignatureDoesNotMatch): check AWS_SECRET_ACCESS_KEY"), worker)
        XCTAssertTrue(worker.contains("S3 refused the signature of s3://filtered/refused/"), worker)
        let told = "\(reading.report) \(reading.stderr) \(writing.report) \(writing.stderr)"
        XCTAssertFalse(told.contains("SignatureDoesNotMatch") || told.contains("AWS_SECRET_ACCESS_KEY"), "S3's words reached a client: \(told)")
        XCTAssertFalse(told.contains(s3.key.accessKeyID), "the key id reached a client: \(told)")
        XCTAssertEqual(try s3.inspect("s3://filtered/refused/").objects.map(\.key), ["refused/index.json"], "no photo was stored; the index says why")
        for process in processes { XCTAssertFalse(process.stderrSoFar.contains("not-the-secret"), "a secret reached a log: \(process.stderrSoFar)") }
    }

    func testASharedDirectoryIsWrittenByTheWorkersInsideTheirRoot() throws {
        let server = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        defer { server.stop() }
        let root = work.appendingPathComponent("mnt"), outside = work.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let endpoint = try startCluster(coordinator: ["--shared-root", root.path], worker: ["--shared-root", root.path])
        let photos = Repository.samplePhotoFiles
        let manifest = try writeManifest(Dictionary(uniqueKeysWithValues: photos.map { ($0, "\(server.baseURL)/\($0)") }))

        let run = try submit(manifest, ["--out-shared", root.path + "/jobs/one"], coordinator: endpoint)
        XCTAssertEqual(run.status, 0, run.stderr)
        let written = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("jobs/one").path).sorted()
        XCTAssertEqual(written, (photos + ["index.json", ".photocluster-owner.json"]).sorted(), "every photo, the index and the owner record, no temporary file")
        let index = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("jobs/one/index.json"))) as? [String: Any]
        let paths = ((index?["photos"] as? [[String: Any]]) ?? []).compactMap { $0["path"] as? String }
        XCTAssertEqual(Set(paths), Set(photos.map { root.path + "/jobs/one/" + $0 }))

        let refused = try submit(manifest, ["--out-shared", outside.path], coordinator: endpoint)
        XCTAssertEqual(refused.status, 1)
        let failures = try XCTUnwrap(refused.report["failed"] as? [[String: String]])
        XCTAssertEqual(failures.count, photos.count)
        XCTAssertTrue(failures.allSatisfy { $0["stage"] == "write" && $0["error"]?.contains("is outside this worker's shared roots (\(root.path))") == true }, "\(failures)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: outside.path), "nothing was written outside the root")

        let relative = try CommandRunner.run(["submit", manifest.path, "--out-shared", "jobs/two", "--coordinator", endpoint])
        XCTAssertEqual(relative.status, 2)
        XCTAssertTrue(relative.stderr.contains("not an absolute path"), relative.stderr)
    }
}
