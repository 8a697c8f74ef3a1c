import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// `cluster submit --chroma`: the JPEG outputs are subsampled as asked, and a bad value or a
/// format without chroma subsampling is a usage error that names the option.
final class ChromaOptionTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var work: URL!

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer.serving(directory: Repository.samplePhotos)
        work = Repository.temporaryDirectory("chroma")
    }

    override func tearDown() {
        server?.stop()
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    func testTheOutputIsSubsampledAsAskedWhateverTheQuality() throws {
        let manifest = work.appendingPathComponent("list.txt")
        try "\(server.baseURL)/clock.jpg\n".write(to: manifest, atomically: true, encoding: .utf8)
        // Without --chroma, quality 95 would be 4:4:4 and quality 80 4:2:0.
        for (arguments, factors) in [(["--chroma", "420", "--quality", "95"], [2, 2]), (["--chroma", "4:2:2", "--quality", "95"], [2, 1]), (["--chroma", "444", "--quality", "80"], [1, 1])] {
            let out = work.appendingPathComponent(arguments[1].replacingOccurrences(of: ":", with: ""))
            let result = try CommandRunner.run(["submit", manifest.path, "--out", out.path, "--workers", "1", "--format", "jpeg"] + arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(JPEGSampling.lumaFactors(try Data(contentsOf: out.appendingPathComponent("clock.jpg"))), factors, "\(arguments)")
        }
    }

    func testABadValueOrAFormatWithoutChromaIsAUsageError() throws {
        let manifest = work.appendingPathComponent("list.txt")
        try "\(server.baseURL)/clock.jpg\n".write(to: manifest, atomically: true, encoding: .utf8)
        let bad = try CommandRunner.run(["submit", manifest.path, "--out", work.appendingPathComponent("bad").path, "--chroma", "411"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--chroma must be 444, 422 or 420, got \"411\""), bad.stderr)
        let png = try CommandRunner.run(["submit", manifest.path, "--out", work.appendingPathComponent("png").path, "--chroma", "444", "--format", "png"])
        XCTAssertEqual(png.status, 2)
        XCTAssertTrue(png.stderr.contains("--chroma is for JPEG output"), png.stderr)
        XCTAssertEqual(server.requestCount, 0, "nothing was fetched")
    }
}
