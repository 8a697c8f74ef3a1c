import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// How `thumbnail` and `resize` look, measured by an independent implementation: camera-like
/// 12-megapixel JPEGs (grain, quality 90) and a zone plate, made once for the class by Pillow and
/// numpy (Tests/Imaging/resample_quality.py), go through `cluster submit` (shrink-on-load, box
/// step and kernel as the worker runs them) into lossless PNGs, which are compared with the source
/// decoded whole and resized by Pillow's exact Lanczos-3. A box filter reaches 38–49 dB and a zone
/// plate SSIM of 0.66 here; Lanczos-3 after shrink-on-load must reach 50 dB and 0.98.
final class ResampleQualityTests: XCTestCase {
    private static var photos: URL?
    private static var made: (status: Int32, output: String)?
    private var python: URL!
    private var server: LoopbackHTTPServer!
    private let helper = Repository.root.appendingPathComponent("Tests/Imaging/resample_quality.py")
    private let cameraPhotos = ["camera-1.jpg", "camera-2.jpg", "camera-3.jpg"]

    override func setUpWithError() throws {
        python = Repository.root.appendingPathComponent(".build-test-tools/venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw XCTSkip("\(python.path) is missing: run scripts/install-test-tools (make test does)")
        }
        if Self.photos == nil {
            let directory = Repository.temporaryDirectory("resample-quality")
            let samples = ["chelsea.jpg", "coffee.jpg", "astronaut.jpg"].map { Repository.samplePhotos.appendingPathComponent($0).path }
            let run = try Tool.run(python.path, [helper.path, "make"] + samples + ["--out", directory.path])
            Self.photos = directory
            Self.made = (run.status, run.output)
        }
        XCTAssertEqual(Self.made?.status, 0, Self.made?.output ?? "")
        server = try LoopbackHTTPServer.serving(directory: Self.photos!)
    }

    override func tearDown() {
        server?.stop()
    }

    override class func tearDown() {
        if let photos { try? FileManager.default.removeItem(at: photos) }
        photos = nil
    }

    /// Runs `cluster submit` on the named photos into PNGs and returns the output directory.
    private func submit(_ names: [String], filter: String) throws -> URL {
        let photos = Self.photos!
        let manifest = photos.appendingPathComponent("manifest-\(UUID().uuidString.prefix(6)).json")
        let entries = Dictionary(uniqueKeysWithValues: names.map { ($0, "\(server.baseURL)/\($0)") })
        try JSONSerialization.data(withJSONObject: entries).write(to: manifest)
        let out = photos.appendingPathComponent("out-\(UUID().uuidString.prefix(6))")
        let result = try CommandRunner.run(["submit", manifest.path, "--out", out.path, "--workers", "1", "--filter", filter, "--format", "png"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        return out
    }

    /// Pillow's measurements of each output against its source resized exactly.
    private func compare(_ pairs: [(source: String, output: URL)]) throws -> [[String: Any]] {
        let arguments = pairs.flatMap { [Self.photos!.appendingPathComponent($0.source).path, $0.output.path] }
        let run = try Tool.run(python.path, [helper.path, "compare"] + arguments)
        XCTAssertEqual(run.status, 0, run.output)
        let lines = run.output.split(separator: "\n").filter { $0.hasPrefix("{") }
        XCTAssertEqual(lines.count, pairs.count, run.output)
        return try lines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], run.output) }
    }

    private func checkCameraPhotos(filter: String, size: [Int]) throws {
        let out = try submit(cameraPhotos, filter: filter)
        let reports = try compare(cameraPhotos.map { ($0, out.appendingPathComponent($0.replacingOccurrences(of: ".jpg", with: ".png"))) })
        var values: [Double] = []
        for (name, report) in zip(cameraPhotos, reports) {
            XCTAssertEqual([report["width"] as? Int, report["height"] as? Int], size, "\(name): \(report)")
            let psnr = try XCTUnwrap(report["psnr"] as? Double, "\(report)")
            XCTAssertGreaterThanOrEqual(psnr, 48, "\(filter) \(name): \(report)")
            // Detail kept: the box filter's thumbnails had 89–93% of the reference's edge contrast.
            XCTAssertGreaterThan(report["edge"] as? Double ?? 0, 0.95, "\(filter) \(name): \(report)")
            values.append(psnr)
        }
        let mean = values.reduce(0, +) / Double(values.count)
        XCTAssertGreaterThanOrEqual(mean, 50, "\(filter): PSNR \(values)")
        print("\(filter): PSNR against Pillow's Lanczos-3 \(values) dB, mean \(String(format: "%.2f", mean)); \(reports)")
    }

    func testThumbnailsOfCameraPhotosMatchTheExactLanczosReference() throws {
        try checkCameraPhotos(filter: "thumbnail:width=512,height=512", size: [512, 384])
    }

    func testResizesOfCameraPhotosMatchTheExactLanczosReference() throws {
        try checkCameraPhotos(filter: "resize:width=800,height=800", size: [800, 600])
    }

    /// Rings finer than the output can hold become flat grey instead of moiré.
    func testAZonePlateShrunkEightTimesHasNoMoire() throws {
        let out = try submit(["zoneplate.png"], filter: "thumbnail:width=504,height=504")
        let report = try XCTUnwrap(try compare([("zoneplate.png", out.appendingPathComponent("zoneplate.png"))]).first)
        XCTAssertEqual([report["width"] as? Int, report["height"] as? Int], [504, 378], "\(report)")
        XCTAssertGreaterThanOrEqual(report["ssim"] as? Double ?? 0, 0.98, "\(report)")
        print("zone plate to 504x378: \(report)")
    }
}
