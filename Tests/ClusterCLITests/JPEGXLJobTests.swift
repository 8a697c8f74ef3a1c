import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// A job of JPEG XL inputs made by cjxl (Tests/Imaging/jxl_photos.py) through `cluster submit`:
/// each comes out upright as its picture, read back by Pillow, and a truncated one fails alone
/// with a reason naming JPEG XL.
final class JPEGXLJobTests: XCTestCase {
    private let helper = Repository.root.appendingPathComponent("Tests/Imaging/jxl_photos.py")
    private let psnrHelper = Repository.root.appendingPathComponent("Tests/Imaging/container_photos.py")

    func testAJobOfJPEGXLPhotosComesOutAsTheirPicturesAndATruncatedOneFailsAlone() throws {
        let python = Repository.root.appendingPathComponent(".build-test-tools/venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path), FileManager.default.isExecutableFile(atPath: "/usr/bin/cjxl") else {
            throw XCTSkip("Pillow's venv or cjxl is missing: run scripts/install-test-tools (make test does)")
        }
        let photos = Repository.temporaryDirectory("jxl-job")
        defer { try? FileManager.default.removeItem(at: photos) }
        let made = try Tool.run(python.path, [helper.path, "make", Repository.samplePhotos.appendingPathComponent("chelsea.jpg").path, photos.path])
        guard made.status == 0 else { throw XCTSkip("jxl_photos.py make failed: \(made.output)") }
        let whole = try Data(contentsOf: photos.appendingPathComponent("lossless.jxl"))
        try whole.prefix(whole.count / 2).write(to: photos.appendingPathComponent("truncated.jxl"))
        let server = try LoopbackHTTPServer.serving(directory: photos)
        defer { server.stop() }

        let inputs = ["lossless.jxl", "lossy.jxl", "sixteen.jxl", "oriented.jxl", "truncated.jxl"]
        let manifest = photos.appendingPathComponent("manifest.json")
        try JSONSerialization.data(withJSONObject: inputs.map { ["name": $0, "url": "\(server.baseURL)/\($0)"] }).write(to: manifest)
        let out = photos.appendingPathComponent("out")
        let result = try CommandRunner.run(["submit", manifest.path, "--out", out.path, "--workers", "2", "--format", "png",
                                            "--filter", "thumbnail:width=4000,height=4000"])
        let said = result.stdout + result.stderr
        XCTAssertEqual(result.status, 1, said)
        XCTAssertTrue(said.contains("4 ok, 1 failed"), said)
        XCTAssertTrue(said.contains("JPEG XL image data is"), "the truncated photo's reason: \(said)")

        let source = photos.appendingPathComponent("source.png")
        for (input, floor) in [("lossless.jxl", 99.0), ("lossy.jxl", 40), ("sixteen.jxl", 45), ("oriented.jxl", 35)] {
            let output = out.appendingPathComponent((input as NSString).deletingPathExtension + ".png")
            let run = try Tool.run(python.path, [psnrHelper.path, "psnr", output.path, source.path])
            XCTAssertEqual(run.status, 0, run.output)
            let line = try XCTUnwrap(run.output.split(separator: "\n").last, run.output)
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], run.output)
            XCTAssertEqual(report["size"] as? [Int], [384, 256], "\(input) upright: \(report)")
            XCTAssertGreaterThanOrEqual(report["psnr"] as? Double ?? 0, floor, "\(input): \(report)")
        }
    }
}
