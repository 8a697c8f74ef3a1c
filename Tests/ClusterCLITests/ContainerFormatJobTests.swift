import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// A job of HEIC, AVIF, TIFF (8 and 16 bits, strips and tiles), GIF and JPEG inputs made by
/// independent encoders (Tests/Imaging/container_photos.py: heif-enc, avifenc, tiffcp, Pillow,
/// pillow-heif) through `cluster submit`, the outputs read back by Pillow, pillow-heif and
/// avifdec; and hostile files of those formats failing alone in a worker under a real cgroup
/// memory limit.
final class ContainerFormatJobTests: XCTestCase {
    private var python: URL!
    private var photos: URL!
    private var server: LoopbackHTTPServer!
    private let helper = Repository.root.appendingPathComponent("Tests/Imaging/container_photos.py")
    /// The inputs, each the same 384×256 picture (gray16 and gif: gray and 64 colours of it).
    private let inputs = [
        "heic.heic", "heif-av1.avif", "avif.avif", "avif10.avif", "tiff8.tif", "tiff16.tif", "tiled16.tif", "gray16.tif", "gif.gif",
        "exif6.jpg", "orient6.tif", "irot.heic", "p3.heic",
    ]
    /// Never enlarges, so the outputs are the inputs' pixels, upright.
    private let identity = ["--filter", "thumbnail:width=4000,height=4000"]

    /// The files and their server, made once for the class (a few seconds of encoding).
    private static var shared: (photos: URL, server: LoopbackHTTPServer)?

    override func setUpWithError() throws {
        python = Repository.root.appendingPathComponent(".build-test-tools/venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw XCTSkip("\(python.path) is missing: run scripts/install-test-tools (make test does)")
        }
        if Self.shared == nil {
            let directory = Repository.temporaryDirectory("container-job")
            let made = try Tool.run(python.path, [helper.path, "make", Repository.samplePhotos.appendingPathComponent("chelsea.jpg").path, directory.path])
            guard made.status == 0 else { throw XCTSkip("container_photos.py make failed: \(made.output)") }
            Self.shared = (directory, try LoopbackHTTPServer.serving(directory: directory))
        }
        (photos, server) = Self.shared!
    }

    override class func tearDown() {
        shared?.server.stop()
        if let photos = shared?.photos { try? FileManager.default.removeItem(at: photos) }
        shared = nil
    }

    /// Runs `cluster submit` of the inputs (named as their files) and returns the output directory.
    private func submit(_ options: [String], inputs: [String]? = nil) throws -> URL {
        let inputs = inputs ?? self.inputs
        let manifest = photos.appendingPathComponent("manifest-\(UUID().uuidString.prefix(6)).json")
        try JSONSerialization.data(withJSONObject: inputs.map { ["name": $0, "url": "\(server.baseURL)/\($0)"] }).write(to: manifest)
        let out = photos.appendingPathComponent("out-\(UUID().uuidString.prefix(6))")
        let result = try CommandRunner.run(["submit", manifest.path, "--out", out.path, "--workers", "2"] + identity + options)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue((result.stdout + result.stderr).contains("\(inputs.count) ok, 0 failed"), result.stdout + result.stderr)
        return out
    }

    /// The output's stem: the name without its image extension (`.heic`, `.tif`… too).
    private func name(of input: String) -> String { (input as NSString).deletingPathExtension }

    private func report(_ arguments: [String]) throws -> [String: Any] {
        let run = try Tool.run(python.path, [helper.path] + arguments)
        XCTAssertEqual(run.status, 0, run.output)
        let line = try XCTUnwrap(run.output.split(separator: "\n").last, run.output)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], run.output)
    }

    private func psnr(_ a: URL, _ b: URL) throws -> Double {
        let result = try report(["psnr", a.path, b.path])
        XCTAssertEqual(result["size"] as? [Int], [384, 256], "\(a.lastPathComponent) is upright: \(result)")
        return result["psnr"] as? Double ?? 0
    }

    func testEveryInputComesOutUprightAsItsPictureInTheFormatKeepingItWrites() throws {
        let out = try submit(["--quality", "95"])
        let source = photos.appendingPathComponent("source.png")
        let written = [
            "heic.heic": "jpg", "heif-av1.avif": "avif", "avif.avif": "avif", "avif10.avif": "avif", "tiff8.tif": "jpg", "tiff16.tif": "jpg",
            "tiled16.tif": "jpg", "gray16.tif": "jpg", "gif.gif": "png", "exif6.jpg": "jpg", "orient6.tif": "jpg", "irot.heic": "jpg",
            "p3.heic": "jpg",
        ]
        for input in inputs {
            let output = out.appendingPathComponent("\(name(of: input)).\(written[input]!)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: output.path), "\(input) written as \(written[input]!)")
            // The gray and 64-colour inputs only resemble the colour picture.
            let floor: Double = input == "gray16.tif" ? 17 : input == "gif.gif" ? 24 : 36
            XCTAssertGreaterThanOrEqual(try psnr(output, source), floor, input)
        }
        // A HEIC turned by its irot box and a JPEG turned by its EXIF orientation: the same picture.
        XCTAssertGreaterThanOrEqual(try psnr(out.appendingPathComponent("exif6.jpg"), out.appendingPathComponent("irot.jpg")), 40)
    }

    func testADisplayP3HEICConvertsToSRGBAsLittleCMSDoesAndKeepsItsProfileOtherwise() throws {
        let converted = try submit(["--format", "png", "--colour", "srgb"], inputs: ["p3.heic"])
        let check = try report(["p3check", converted.appendingPathComponent("p3.png").path, photos.appendingPathComponent("p3.heic").path])
        XCTAssertLessThanOrEqual(check["max"] as? Int ?? 255, 1, "\(check)")
        XCTAssertEqual(check["profile"] as? Bool, false, "sRGB needs no profile: \(check)")
        let kept = try submit(["--format", "png"], inputs: ["p3.heic"])
        let keep = try report(["p3check", kept.appendingPathComponent("p3.png").path, photos.appendingPathComponent("p3.heic").path])
        XCTAssertEqual(keep["profile"] as? Bool, true, "the Display P3 profile travels with the pixels: \(keep)")
        XCTAssertGreaterThan(keep["max"] as? Int ?? 0, 1, "the pixels are P3's, not converted: \(keep)")
    }

    /// A TIFF's EXIF (its first directory's descriptive tags, and the EXIF and GPS directories
    /// exiftool wrote) goes into the output as `--metadata` says, as a JPEG's does.
    func testATIFFsEXIFIsKeptOrStrippedAsAJPEGsIs() throws {
        let kept = try report(["exif", try submit(["--metadata", "keep"], inputs: ["exif.tif"]).appendingPathComponent("exif.jpg").path])
        let ifd0 = try XCTUnwrap(kept["ifd0"] as? [String: Any]), exif = try XCTUnwrap(kept["exif"] as? [String: Any])
        XCTAssertEqual(ifd0["271"] as? String, "Camera Co", "\(kept)")
        XCTAssertEqual(ifd0["315"] as? String, "Jane Doe", "\(kept)")
        XCTAssertEqual(ifd0["274"] as? Int, 1, "turned upright: the orientation is reset \(kept)")
        XCTAssertNil(ifd0["273"], "no strip offsets of the TIFF's pixels: \(kept)")
        XCTAssertEqual(exif["36867"] as? String, "2024:05:06 07:08:09", "\(kept)")
        XCTAssertEqual(exif["42033"] as? String, "SN123", "\(kept)")
        XCTAssertEqual((kept["gps"] as? [String: Any])?["1"] as? String, "N", "\(kept)")

        let rights = try report(["exif", try submit(["--metadata", "copyright"], inputs: ["exif.tif"]).appendingPathComponent("exif.jpg").path])
        XCTAssertEqual(rights["ifd0"] as? [String: String], ["315": "Jane Doe", "33432": "(c) Jane Doe"], "\(rights)")
        XCTAssertEqual((rights["exif"] as? [String: Any])?.isEmpty, true, "\(rights)")
        XCTAssertEqual((rights["gps"] as? [String: Any])?.isEmpty, true, "\(rights)")
    }

    func testAVIFOutputsDecodeWithAvifdecAtTheDefaultQuality() throws {
        let chosen = ["heic.heic", "tiff8.tif", "exif6.jpg", "avif10.avif"]
        let out = try submit(["--format", "avif"], inputs: chosen)
        let source = photos.appendingPathComponent("source.png")
        for input in chosen {
            XCTAssertGreaterThanOrEqual(try psnr(out.appendingPathComponent("\(name(of: input)).avif"), source), 35, input)
        }
    }

    func testHostileFilesFailAloneInsideACgroupWorkersBudget() throws {
        let hostile = photos.appendingPathComponent("hostile")
        try FileManager.default.createDirectory(at: hostile, withIntermediateDirectories: true)
        let made = try Tool.run(python.path, [helper.path, "hostile", hostile.path])
        XCTAssertEqual(made.status, 0, made.output)
        var served: [String: (body: Data, type: String)] = [:]
        for name in ["huge.heic", "truncated.avif", "bomb.tif"] {
            served[name] = (try Data(contentsOf: hostile.appendingPathComponent(name)), "application/octet-stream")
        }
        served["good.heic"] = (try Data(contentsOf: photos.appendingPathComponent("heic.heic")), "image/heic")
        let limit = 768 << 20
        let cluster = try CgroupWorkerCluster(label: "hostile-containers", limitBytes: limit, made: served)
        defer { cluster.stop() }
        let job = try cluster.submit(
            "hostile", [("huge", "huge.heic"), ("truncated", "truncated.avif"), ("bomb", "bomb.tif"), ("good", "good.heic")], identity)
        let result = job.finish(timeout: 120)
        XCTAssertEqual(result.status, 1, result.stderr)
        let outcome = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(outcome["succeeded"] as? Int, 1, "the good photo beside them: \(outcome)")
        let failed = try XCTUnwrap(outcome["failed"] as? [[String: Any]], result.stdout)
        let reasons = Dictionary(uniqueKeysWithValues: failed.map { ($0["name"] as? String ?? "", $0["error"] as? String ?? "") })
        XCTAssertTrue(reasons["huge"]?.contains("HEIF") == true && reasons["huge"]?.contains("40000") == true, "\(reasons)")
        XCTAssertTrue(reasons["truncated"]?.contains("AVIF") == true, "\(reasons)")
        XCTAssertTrue(reasons["bomb"]?.contains("over this worker's memory budget") == true, "refused before its strip is inflated: \(reasons)")
        XCTAssertTrue(cluster.worker.process.isRunning, "the worker ended: \(cluster.worker.stderrSoFar)")
        XCTAssertEqual(cluster.group.oomKills, 0, "the kernel killed a process of the group")
        XCTAssertEqual(cluster.group.failures, 0, "the group reached its limit (max usage \(cluster.group.maxUsage))")
    }
}
