import Foundation
import LoopbackHTTP
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterTestSupport
import XCTest

/// `cluster submit` as a user runs it: the built binary, real photos over HTTP on loopback.
final class SubmitCommandTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var work: URL!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        work = Repository.temporaryDirectory("cli")
    }

    override func tearDown() {
        server?.stop()
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    private func writeManifest(_ entries: [String: String], name: String = "photos.json") throws -> URL {
        let url = work.appendingPathComponent(name)
        try JSONSerialization.data(withJSONObject: entries).write(to: url)
        return url
    }

    func testEmbeddedSubmitJSONReportsEveryPhotoAndWritesSepiaOutputs() throws {
        var entries: [String: String] = [:]
        for file in Repository.samplePhotoFiles { entries[file] = "\(server.baseURL)/\(file)" }
        entries["kitten"] = "\(server.baseURL)/kiten.jpg"
        entries["lighthouse"] = "\(server.baseURL)/lighthuose.jpg"
        let manifest = try writeManifest(entries)
        let out = work.appendingPathComponent("out")

        let result = try CommandRunner.run(["submit", manifest.path, "--out", out.path, "--json", "--workers", "2"])
        XCTAssertEqual(result.status, 1, "failed photos make the exit status 1\n\(result.stderr)")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(Set(object.keys), ["job", "total", "succeeded", "cancelled", "failed", "outputs", "elapsed_seconds"])
        XCTAssertTrue(object["job"] is String)
        XCTAssertEqual(object["total"] as? Int, entries.count)
        XCTAssertEqual(object["succeeded"] as? Int, Repository.samplePhotoFiles.count)
        XCTAssertEqual(object["cancelled"] as? Int, 0)
        XCTAssertGreaterThan(object["elapsed_seconds"] as? Double ?? 0, 0)

        let failed = try XCTUnwrap(object["failed"] as? [[String: String]])
        XCTAssertEqual(failed.compactMap { $0["name"] }.sorted(), ["kitten", "lighthouse"])
        for failure in failed {
            XCTAssertEqual(Set(failure.keys), ["name", "url", "stage", "error"])
            XCTAssertEqual(failure["stage"], "download")
            XCTAssertTrue(failure["error"]?.hasPrefix("HTTP 404") == true, "\(failure)")
            XCTAssertEqual(failure["url"], entries[failure["name"]!])
        }

        let outputs = try XCTUnwrap(object["outputs"] as? [[String: Any]])
        XCTAssertEqual(outputs.count, Repository.samplePhotoFiles.count)
        for output in outputs {
            XCTAssertEqual(Set(output.keys), ["name", "path", "width", "height"])
            let name = try XCTUnwrap(output["name"] as? String)
            let path = try XCTUnwrap(output["path"] as? String)
            XCTAssertTrue(path.hasPrefix(out.path + "/"), path)
            let input = try ImageCodec.decode(try Data(contentsOf: Repository.samplePhotos.appendingPathComponent(name)))
            let written = try ImageCodec.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
            XCTAssertEqual(written.format, input.format, "\(name) keeps its format")
            XCTAssertEqual(written.image.width, input.image.width)
            XCTAssertEqual(written.image.height, input.image.height)
            XCTAssertEqual(output["width"] as? Int, input.image.width)
            XCTAssertEqual(output["height"] as? Int, input.image.height)
            // The pixels are the input's, sepia-toned: exact for PNG, within JPEG's loss otherwise.
            let difference = SepiaReference.difference(SepiaReference.apply(input.image), written.image)
            if input.format == .png {
                XCTAssertLessThanOrEqual(difference.max, 1, name)
            } else {
                XCTAssertLessThan(difference.mean, 3.5, "\(name): mean difference from reference sepia \(difference.mean)")
            }
        }
        // Failed photos left no file, and no temporary file is left behind.
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0 != "index.json" && !$0.hasPrefix(".") }
        XCTAssertEqual(files.count, Repository.samplePhotoFiles.count, "\(files)")
        XCTAssertFalse(files.contains { $0.hasPrefix(".") || $0.lowercased().contains("kit") || $0.lowercased().contains("light") })
    }

    func testAllGoodPhotosExitZeroAndFormatCanChange() throws {
        let manifest = work.appendingPathComponent("list.txt")
        try "# two photos\n\(server.baseURL)/clock.jpg\n\n\(server.baseURL)/horse.png\n".write(to: manifest, atomically: true, encoding: .utf8)
        let out = work.appendingPathComponent("png")
        let result = try CommandRunner.run(["submit", manifest.path, "--out", out.path, "--format", "png", "--filter", "sepia:intensity=1"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("2 ok, 0 failed"), result.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.hasPrefix(".") }.sorted(), ["clock.png", "horse.png", "index.json"])
        let clock = try ImageCodec.decode(try Data(contentsOf: out.appendingPathComponent("clock.png")))
        XCTAssertEqual(clock.format, .png)
        let input = try ImageCodec.decode(try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("clock.jpg"))).image
        XCTAssertLessThanOrEqual(SepiaReference.difference(SepiaReference.apply(input, intensity: 1), clock.image).max, 1)
    }

    /// A job over the table's limit is reported by its photos that did not succeed, and where the
    /// list of every photo is; `--json` still lists every output.
    func testALargeJobsTableListsOnlyThePhotosThatDidNotSucceed() throws {
        // One photo under a thousand and one names: it is fetched and filtered once, and copied.
        var entries: [String: String] = [:]
        for index in 0..<1_000 { entries[String(format: "copy%04d", index)] = "\(server.baseURL)/clock.jpg" }
        entries["missing"] = "\(server.baseURL)/no-such-photo.jpg"
        let manifest = try writeManifest(entries)
        let out = work.appendingPathComponent("large")
        let result = try CommandRunner.run(["submit", manifest.path, "--out", out.path, "--workers", "2"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let rows = result.stdout.split(separator: "\n")
        XCTAssertTrue(rows.contains { $0.hasPrefix("missing") && $0.contains("failed") && $0.contains("HTTP 404") }, result.stdout)
        XCTAssertFalse(rows.contains { $0.hasPrefix("copy") }, "no row for a photo that succeeded")
        XCTAssertTrue(result.stdout.contains("(1000 photos that succeeded are not listed: \(out.path)/index.json lists every photo)"), result.stdout)
        XCTAssertTrue(result.stdout.contains("1000 ok, 1 failed"), result.stdout)
        let index = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("index.json"))) as? [String: Any])
        XCTAssertEqual((index["photos"] as? [Any])?.count, 1_001)

        let json = try CommandRunner.run(["submit", manifest.path, "--out", work.appendingPathComponent("large-json").path, "--json", "--workers", "2"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stdout)
        XCTAssertEqual((object["outputs"] as? [Any])?.count, 1_000, "JSON lists every output")
    }

    func testMalformedManifestExitsTwoNamingFileAndEntry() throws {
        let manifest = work.appendingPathComponent("broken.txt")
        try "\(server.baseURL)/clock.jpg\nthis is not a url\n".write(to: manifest, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["submit", manifest.path, "--out", work.appendingPathComponent("o").path])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains(manifest.path), result.stderr)
        XCTAssertTrue(result.stderr.contains("line 2"), result.stderr)
        XCTAssertEqual(server.requestCount, 0, "nothing was fetched")
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("o").path))

        let duplicate = try writeManifest(["a": "\(server.baseURL)/clock.jpg"], name: "dup.json")
        try #"[{"name": "a", "url": "http://h/a.jpg"}, {"name": "a", "url": "http://h/b.jpg"}]"#.write(to: duplicate, atomically: true, encoding: .utf8)
        let second = try CommandRunner.run(["submit", duplicate.path])
        XCTAssertEqual(second.status, 2)
        XCTAssertTrue(second.stderr.contains("entry 2"), second.stderr)
        XCTAssertTrue(second.stderr.contains("unique"), second.stderr)
    }

    func testUsageErrorsExitTwo() throws {
        let manifest = try writeManifest(["a": "\(server.baseURL)/clock.jpg"])
        let unknown = try CommandRunner.run(["submit", manifest.path, "--filter", "oilpaint"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("unknown filter; available: "), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("sepia"), unknown.stderr)
        let range = try CommandRunner.run(["submit", manifest.path, "--filter", "sepia:intensity=3"])
        XCTAssertEqual(range.status, 2)
        XCTAssertTrue(range.stderr.contains("0…1"), range.stderr)
        XCTAssertEqual(try CommandRunner.run(["submit", manifest.path, "--quality", "0"]).status, 2)
        XCTAssertEqual(try CommandRunner.run(["submit", manifest.path, "--format", "gif"]).status, 2)
        XCTAssertEqual(try CommandRunner.run(["submit"]).status, 2)
        XCTAssertEqual(try CommandRunner.run(["frobnicate"]).status, 2)
        XCTAssertEqual(try CommandRunner.run(["submit", work.appendingPathComponent("missing.plist").path]).status, 2)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testDemoFiltersTheSamplesAndReportsTheMisspelledOnes() throws {
        let out = work.appendingPathComponent("demo-out")
        let result = try CommandRunner.run(["demo", "--samples", Repository.root.appendingPathComponent("samples").path, "--out", out.path])
        XCTAssertEqual(result.status, 1, "two photos fail by design\n\(result.stderr)")
        XCTAssertTrue(result.stdout.contains("14 ok, 2 failed"), result.stdout)
        XCTAssertEqual(result.stdout.components(separatedBy: "download: HTTP 404").count - 1, 2, result.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0 != "index.json" && !$0.hasPrefix(".") }.count, 14)
    }
}
