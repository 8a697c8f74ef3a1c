import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// Each client key has its own outputs and storage grants, with a `cluster coordinator` process
/// that has CURVE keys by role, a worker process, and client commands as processes: an output
/// directory belongs to the key whose job made it, a job does not replace another's outputs by
/// accident, and `s3://` locations must lie within the key's grants (against an S3-compatible
/// server that checks every signature).
final class TenancyTests: XCTestCase {
    /// Every file of `directory` (hidden ones too): its bytes and its modification time.
    /// Every file's bytes and modification time. `backdating` first sets each time to 1970, so a
    /// file written again later shows it in its time, however coarse the file system's clock.
    private func snapshot(_ directory: URL, backdating: Bool = false) throws -> [String: (data: Data, modified: Date)] {
        var files: [String: (data: Data, modified: Date)] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let file = directory.appendingPathComponent(name)
            if backdating { try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 0)], ofItemAtPath: file.path) }
            let modified = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date)
            files[name] = (try Data(contentsOf: file), modified)
        }
        return files
    }

    private func assertUnchanged(_ before: [String: (data: Data, modified: Date)], _ directory: URL, _ message: String,
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let after = try snapshot(directory)
        XCTAssertEqual(after.keys.sorted(), before.keys.sorted(), "\(message): the directory's files", file: file, line: line)
        for (name, was) in before {
            XCTAssertEqual(after[name]?.data, was.data, "\(message): \(name)'s contents", file: file, line: line)
            XCTAssertEqual(after[name]?.modified, was.modified, "\(message): \(name)'s modification time", file: file, line: line)
        }
    }

    private func owner(of directory: URL) throws -> [String: String] {
        let data = try Data(contentsOf: directory.appendingPathComponent(".photocluster-owner.json"))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: String])
    }

    func testAnOutputDirectoryBelongsToTheKeyWhoseJobMadeIt() throws {
        let cluster = try SecuredCluster(label: "tenancy-owner", roles: ["w1": "worker", "alice": "client", "bob": "client", "ops": "admin"])
        defer { cluster.stop() }
        _ = try cluster.startWorker("w1")
        let albums = cluster.root.appendingPathComponent("albums")

        let made = try cluster.run(["submit", try cluster.manifest(count: 2).path, "--out", "albums"], as: "alice")
        XCTAssertEqual(made.status, 0, made.stderr)
        let record = try owner(of: albums)
        XCTAssertEqual(record["label"], "alice")
        XCTAssertEqual(record["role"], "client")
        XCTAssertEqual(record["key"], try cluster.publicKey("alice"))
        let before = try snapshot(albums, backdating: true)
        XCTAssertTrue(before.keys.contains("index.json"), "\(before.keys.sorted())")
        XCTAssertEqual(before.count, 4, "two photos, the index and the owner record: \(before.keys.sorted())")

        // Another client key: refused before anything is written, replacing or not.
        for extra in [[], ["--replace-outputs"]] {
            let bob = try cluster.run(["submit", try cluster.manifest(count: 2).path, "--out", "albums"] + extra, as: "bob")
            XCTAssertEqual(bob.status, 2, bob.stderr)
            XCTAssertTrue(bob.stderr.contains("the output directory \(albums.path) belongs to the client key alice"), bob.stderr)
            XCTAssertTrue(bob.stderr.contains("choose another --out directory"), bob.stderr)
            try assertUnchanged(before, albums, "bob's job \(extra)")
        }
        // The same key, by accident: refused until it asks to replace.
        let again = try cluster.run(["submit", try cluster.manifest(count: 2).path, "--out", albums.path], as: "alice")
        XCTAssertEqual(again.status, 2, again.stderr)
        XCTAssertTrue(again.stderr.contains("holds the finished outputs of job \(record["job"]!)"), again.stderr)
        XCTAssertTrue(again.stderr.contains("--replace-outputs"), again.stderr)
        try assertUnchanged(before, albums, "alice's second job without --replace-outputs")

        let replaced = try cluster.run(["submit", try cluster.manifest(count: 2).path, "--out", "albums", "--replace-outputs"], as: "alice")
        XCTAssertEqual(replaced.status, 0, replaced.stderr)
        let second = try owner(of: albums)
        XCTAssertNotEqual(second["job"], record["job"])
        XCTAssertEqual(second["label"], "alice")

        // An admin may write into it; the directory stays alice's.
        let admin = try cluster.run(["submit", try cluster.manifest(count: 2).path, "--out", "albums", "--replace-outputs"], as: "ops")
        XCTAssertEqual(admin.status, 0, admin.stderr)
        let third = try owner(of: albums)
        XCTAssertNotEqual(third["job"], second["job"])
        XCTAssertEqual(third["label"], "alice")
        XCTAssertEqual(third["key"], try cluster.publicKey("alice"))

        // A new directory is bob's own.
        let own = try cluster.run(["submit", try cluster.manifest(count: 1).path, "--out", "bobs"], as: "bob")
        XCTAssertEqual(own.status, 0, own.stderr)
        XCTAssertEqual(try owner(of: cluster.root.appendingPathComponent("bobs"))["label"], "bob")
        XCTAssertTrue(cluster.coordinator.stderrSoFar.contains("belongs to the client key alice"), "the refusal is logged")
        let metrics = try HTTP.text(cluster.metrics + "/metrics")
        XCTAssertEqual(sample(#"photocluster_refused_requests_total{reason="output_owner"}"#, in: metrics), 2, metrics)
        XCTAssertEqual(sample(#"photocluster_refused_requests_total{reason="output_occupied"}"#, in: metrics), 1, metrics)
    }

    /// Every file under `directory`, recursively, with its bytes.
    private func tree(_ directory: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        let walk = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let file = walk?.nextObject() as? URL {
            files[file.path] = FileManager.default.contents(atPath: file.path) ?? Data("<directory>".utf8)
        }
        return files
    }

    func testADirectoryMayLieNeitherInsideNorAboveAnotherKeys() throws {
        let cluster = try SecuredCluster(label: "tenancy-tree", roles: ["w1": "worker", "alice": "client", "bob": "client", "ops": "admin"])
        defer { cluster.stop() }
        _ = try cluster.startWorker("w1")
        let alices = cluster.root.appendingPathComponent("albums/alice")
        let made = try cluster.run(["submit", try cluster.manifest(count: 1).path, "--out", "albums/alice"], as: "alice")
        XCTAssertEqual(made.status, 0, made.stderr)
        let before = tree(cluster.root)

        // Inside hers, however spelled, and above hers: refused, nothing made or written.
        for out in ["albums/alice/sub", "albums/alice/sub/deeper", "albums/x/../alice/sub", cluster.root.appendingPathComponent("albums/alice/sub").path] {
            let bob = try cluster.run(["submit", try cluster.manifest(count: 1).path, "--out", out], as: "bob")
            XCTAssertEqual(bob.status, 2, "\(out): \(bob.stderr)")
            XCTAssertTrue(bob.stderr.contains("lies inside \(alices.path), which belongs to the client key alice"), bob.stderr)
        }
        for out in ["albums", ".", "albums/."] {
            let bob = try cluster.run(["submit", try cluster.manifest(count: 1).path, "--out", out, "--replace-outputs"], as: "bob")
            XCTAssertEqual(bob.status, 2, "\(out): \(bob.stderr)")
            XCTAssertTrue(bob.stderr.contains("holds \(alices.path), which belongs to the client key alice"), bob.stderr)
        }
        XCTAssertEqual(tree(cluster.root), before, "nothing changed under the root")
        XCTAssertFalse(FileManager.default.fileExists(atPath: cluster.root.appendingPathComponent("albums/.photocluster-owner.json").path))

        // Her own tree is hers to nest in; a sibling is free; an admin may write anywhere.
        let nested = try cluster.run(["submit", try cluster.manifest(count: 1).path, "--out", "albums/alice/2026"], as: "alice")
        XCTAssertEqual(nested.status, 0, nested.stderr)
        let sibling = try cluster.run(["submit", try cluster.manifest(count: 1).path, "--out", "albums/bob"], as: "bob")
        XCTAssertEqual(sibling.status, 0, sibling.stderr)
        let admin = try cluster.run(["submit", try cluster.manifest(count: 1).path, "--out", "albums/alice/ops"], as: "ops")
        XCTAssertEqual(admin.status, 0, admin.stderr)
        let metrics = try HTTP.text(cluster.metrics + "/metrics")
        XCTAssertEqual(sample(#"photocluster_refused_requests_total{reason="output_owner"}"#, in: metrics), 7, metrics)
    }

    func testAJobStillWritingKeepsItsDirectory() throws {
        let cluster = try SecuredCluster(label: "tenancy-open", roles: ["alice": "client"])
        defer { cluster.stop() }
        let job = try cluster.openJob(as: "alice", out: "live")
        let second = try cluster.run(["submit", try cluster.manifest(count: 1).path, "--out", "live", "--visible", "0..0"], as: "alice")
        XCTAssertEqual(second.status, 2, second.stderr)
        XCTAssertTrue(second.stderr.contains("is in use by job \(job), which has not finished"), second.stderr)
        XCTAssertEqual(try owner(of: cluster.root.appendingPathComponent("live"))["job"], job, "the record is the open job's still")
        // Asked for, the second job writes into it too.
        let replacing = try cluster.run(["submit", try cluster.manifest(count: 1).path, "--out", "live", "--visible", "0..0", "--replace-outputs"], as: "alice")
        XCTAssertEqual(replacing.status, 0, replacing.stderr)
        XCTAssertEqual(try owner(of: cluster.root.appendingPathComponent("live"))["job"], replacing.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func testS3LocationsOutsideAKeysGrantsAreRefusedBeforeAnyWorkerTouchesThem() throws {
        let photos = Array(Repository.samplePhotoFiles.prefix(2))
        let s3 = try S3TestServer(buckets: ["photos"], objects: photos.flatMap { name in
            [("s3://photos/in/\(name)", Repository.samplePhotos.appendingPathComponent(name)),
             ("s3://photos/private/\(name)", Repository.samplePhotos.appendingPathComponent(name))]
        })
        defer { s3.stop() }
        let environment = Dictionary(uniqueKeysWithValues: s3.environment().map { variable -> (String, String) in
            let parts = variable.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts[1])
        })
        let cluster = try SecuredCluster(label: "tenancy-s3", roles: ["w1": "worker", "alice": "client", "bob": "client"],
                                         grants: [("alice", "write s3://photos/alice"), ("alice", "read s3://photos/in")], environment: environment)
        defer { cluster.stop() }
        _ = try cluster.startWorker("w1")
        func manifest(_ folder: String) throws -> URL {
            let url = cluster.work.appendingPathComponent("\(folder)-\(UUID().uuidString.prefix(4)).txt")
            try photos.map { "s3://photos/\(folder)/\($0)" }.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
            return url
        }
        let stored = try s3.inspect("s3://photos/").objects.map(\.key)

        let outside = try cluster.run(["submit", try manifest("in").path, "--out", "s3://photos/bob/run"], as: "alice")
        XCTAssertEqual(outside.status, 2, outside.stderr)
        XCTAssertTrue(outside.stderr.contains("cannot write s3://photos/bob/run is outside what the client key alice may write (s3://photos/alice)"), outside.stderr)
        let sibling = try cluster.run(["submit", try manifest("in").path, "--out", "s3://photos/alice2"], as: "alice")
        XCTAssertEqual(sibling.status, 2, sibling.stderr)
        let reading = try cluster.run(["submit", try manifest("private").path, "--out", "s3://photos/alice/run"], as: "alice")
        XCTAssertEqual(reading.status, 2, reading.stderr)
        XCTAssertTrue(reading.stderr.contains("cannot read s3://photos/private/"), reading.stderr)
        let ungranted = try cluster.run(["submit", try manifest("in").path, "--out", "s3://photos/bob"], as: "bob")
        XCTAssertEqual(ungranted.status, 2, ungranted.stderr)
        XCTAssertTrue(ungranted.stderr.contains("the client key bob has no S3 grant"), ungranted.stderr)
        XCTAssertEqual(try s3.inspect("s3://photos/").objects.map(\.key), stored, "nothing was written to the bucket")
        XCTAssertEqual(sample(#"photocluster_refused_requests_total{reason="storage_grant"}"#, in: try HTTP.text(cluster.metrics + "/metrics")), 4)

        // A grant given while the coordinator runs is in force after a reload.
        let grants = cluster.work.appendingPathComponent("grants")
        let bobsGrant = "\ngrant \(try cluster.publicKey("bob")) write s3://photos/bob\ngrant \(try cluster.publicKey("bob")) read s3://photos/in\n"
        try (try String(contentsOf: grants, encoding: .utf8) + bobsGrant).write(to: grants, atomically: true, encoding: .utf8)
        cluster.coordinator.process.send(signal: SIGHUP)
        XCTAssertTrue(eventually(timeout: 10) { cluster.coordinator.stderrSoFar.contains("1 with other S3 grants") }, cluster.coordinator.stderrSoFar)
        let bobs = try cluster.run(["submit", try manifest("in").path, "--out", "s3://photos/bob/run"], as: "bob")
        XCTAssertEqual(bobs.status, 0, bobs.stderr)

        // Inside the grants the job runs, and only there.
        let granted = try cluster.run(["submit", try manifest("in").path, "--out", "s3://photos/alice/run"], as: "alice")
        XCTAssertEqual(granted.status, 0, granted.stderr)
        XCTAssertEqual(try s3.inspect("s3://photos/").objects.map(\.key).filter { !stored.contains($0) }.sorted(),
                       (photos.flatMap { ["alice/run/\($0)", "bob/run/\($0)"] } + ["alice/run/index.json", "bob/run/index.json"]).sorted())
    }

    /// Without keys nobody owns a directory, but a job still does not replace another's outputs
    /// unless asked to (here with the embedded cluster of `cluster submit`).
    func testWithoutKeysAJobReplacesAnothersOutputsOnlyWhenAsked() throws {
        let server = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        let work = Repository.temporaryDirectory("tenancy-embedded")
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: work)
        }
        let manifest = work.appendingPathComponent("photos.txt")
        try Repository.samplePhotoFiles.prefix(2).map { "\(server.baseURL)/\($0)" }.joined(separator: "\n").write(to: manifest, atomically: true, encoding: .utf8)
        let out = work.appendingPathComponent("out")
        let first = try CommandRunner.run(["submit", manifest.path, "--out", out.path, "--workers", "1"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let record = try owner(of: out)
        XCTAssertNil(record["key"], "nobody owns it: \(record)")
        let before = try snapshot(out, backdating: true)

        let again = try CommandRunner.run(["submit", manifest.path, "--out", out.path, "--workers", "1"])
        XCTAssertEqual(again.status, 2, again.stderr)
        XCTAssertTrue(again.stderr.contains("the output directory \(out.path) holds the finished outputs of job \(record["job"]!)"), again.stderr)
        XCTAssertTrue(again.stderr.contains("submit again with --replace-outputs"), again.stderr)
        try assertUnchanged(before, out, "a second job without --replace-outputs")

        let replaced = try CommandRunner.run(["submit", manifest.path, "--out", out.path, "--workers", "1", "--replace-outputs"])
        XCTAssertEqual(replaced.status, 0, replaced.stderr)
        XCTAssertNotEqual(try owner(of: out)["job"], record["job"])
    }
}
