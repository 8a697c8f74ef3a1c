import Foundation
import LoopbackHTTP
import PhotoClusterTestSupport
import XCTest

/// Photos as cameras and phones make them (every EXIF orientation, a Display P3 profile, a PNG
/// with iCCP and eXIf), made by the test with Pillow from a real photo, run through `cluster
/// submit`, and read back with Pillow (Tests/Imaging/camera_photos.py): an independent decoder
/// checks the outputs' pixels and metadata.
final class CameraPhotoTests: XCTestCase {
    private var python: URL!
    private var photos: URL!
    private var server: LoopbackHTTPServer!
    private let helper = Repository.root.appendingPathComponent("Tests/Imaging/camera_photos.py")

    override func setUpWithError() throws {
        python = Repository.root.appendingPathComponent(".build-test-tools/venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw XCTSkip("\(python.path) is missing: run scripts/install-test-tools (make test does)")
        }
        photos = Repository.temporaryDirectory("camera")
        let made = try Tool.run(python.path, [helper.path, "make", Repository.samplePhotos.appendingPathComponent("chelsea.jpg").path, photos.path])
        XCTAssertEqual(made.status, 0, made.output)
        server = try LoopbackHTTPServer.serving(directory: photos)
    }

    override func tearDown() {
        server?.stop()
        if let photos { try? FileManager.default.removeItem(at: photos) }
    }

    /// Runs `cluster submit` on the named photos and returns the output directory.
    private func submit(_ names: [String], _ options: [String]) throws -> URL {
        let manifest = photos.appendingPathComponent("manifest-\(UUID().uuidString.prefix(6)).json")
        let entries = Dictionary(uniqueKeysWithValues: names.map { ($0, "\(server.baseURL)/\($0)") })
        try JSONSerialization.data(withJSONObject: entries).write(to: manifest)
        let out = photos.appendingPathComponent("out-\(UUID().uuidString.prefix(6))")
        let result = try CommandRunner.run(["submit", manifest.path, "--out", out.path, "--workers", "2"] + options)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        return out
    }

    /// What Pillow reads in `file`, compared with `against` (cut to `crop`) when given.
    private func inspect(_ file: URL, against: String? = nil, resize: String? = nil, crop: String? = nil, convertFrom: String? = nil) throws -> [String: Any] {
        var arguments = [helper.path, "inspect", file.path]
        if let against { arguments += ["--against", photos.appendingPathComponent(against).path] }
        if let resize { arguments += ["--resize", resize] }
        if let crop { arguments += ["--crop", crop] }
        if let convertFrom { arguments += ["--convert-from", photos.appendingPathComponent(convertFrom).path] }
        let run = try Tool.run(python.path, arguments)
        XCTAssertEqual(run.status, 0, run.output)
        let line = try XCTUnwrap(run.output.split(separator: "\n").last, run.output)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], run.output)
    }

    /// No orientation tag, or 1.
    private func isUpright(_ report: [String: Any]) -> Bool {
        report["orientation"] is NSNull || report["orientation"] as? Int == 1
    }

    private func difference(_ report: [String: Any], file: StaticString = #filePath, line: UInt = #line) -> (mean: Double, max: Double) {
        let difference = report["difference"] as? [String: Any] ?? [:]
        guard let mean = difference["mean"] as? Double, let max = difference["max"] as? Double else {
            XCTFail("no pixel comparison: \(report)", file: file, line: line)
            return (.infinity, .infinity)
        }
        return (mean, max)
    }

    func testEveryOrientationComesOutUprightAndFiltersSeeUprightPixels() throws {
        let names = (1...8).map { "o\($0).jpg" }
        // The crop's rectangle is in upright pixels: the stored photos are 300×451 or 451×300.
        let crop = "20,30,200,250"
        let out = try submit(names, ["--filter", "crop:x=20,y=30,width=200,height=250", "--quality", "95"])
        for orientation in 1...8 {
            let report = try inspect(out.appendingPathComponent("o\(orientation).jpg"), against: "upright.png", crop: crop)
            XCTAssertEqual(report["width"] as? Int, 200, "o\(orientation): \(report)")
            XCTAssertEqual(report["height"] as? Int, 250, "o\(orientation): \(report)")
            XCTAssertTrue(isUpright(report), "o\(orientation) is written upright: \(report)")
            let (mean, _) = difference(report)
            XCTAssertLessThan(mean, 2.5, "o\(orientation) shows what the camera saw: \(report)")
            // The default policy strips the camera's EXIF (GPS, artist, make) and XMP.
            XCTAssertEqual(report["exif_tags"] as? [Int], [], "o\(orientation): \(report)")
            XCTAssertTrue((report["xmp"] as? String ?? "").isEmpty, "o\(orientation): \(report)")
        }
    }

    func testNoAutoOrientKeepsTheStoredPixelsAndTheirTag() throws {
        let out = try submit(["o6.jpg", "o3.jpg"], ["--filter", "brightness", "--no-auto-orient", "--quality", "95"])
        let sideways = try inspect(out.appendingPathComponent("o6.jpg"), against: "o6.jpg")
        XCTAssertEqual(sideways["width"] as? Int, 300, "\(sideways)")
        XCTAssertEqual(sideways["height"] as? Int, 451, "\(sideways)")
        XCTAssertEqual(sideways["orientation"] as? Int, 6, "viewers still turn it: \(sideways)")
        XCTAssertEqual(sideways["exif_tags"] as? [Int], [0x0112], "only the orientation: \(sideways)")
        XCTAssertLessThan(difference(sideways).mean, 2.5, "\(sideways)")
        let upsideDown = try inspect(out.appendingPathComponent("o3.jpg"), against: "o3.jpg")
        XCTAssertEqual(upsideDown["orientation"] as? Int, 3, "\(upsideDown)")
        XCTAssertLessThan(difference(upsideDown).mean, 2.5, "\(upsideDown)")
    }

    func testMetadataPolicies() throws {
        let keep = try inspect(try submit(["o6.jpg"], ["--filter", "brightness", "--metadata", "keep"]).appendingPathComponent("o6.jpg"))
        XCTAssertEqual(keep["orientation"] as? Int, 1, "orientation reset once applied: \(keep)")
        XCTAssertEqual(keep["artist"] as? String, "Ada Lovelace", "\(keep)")
        XCTAssertTrue((keep["exif_tags"] as? [Int] ?? []).contains(0x8825), "the GPS position is kept on request: \(keep)")
        let xmp = keep["xmp"] as? String ?? ""
        XCTAssertTrue(xmp.contains(#"tiff:Orientation="1""#), "XMP kept, its orientation reset: \(xmp)")

        let rights = try inspect(try submit(["o6.jpg"], ["--filter", "brightness", "--metadata", "copyright"]).appendingPathComponent("o6.jpg"))
        XCTAssertEqual(rights["exif_tags"] as? [Int], [0x013B, 0x8298], "artist and copyright only: \(rights)")
        XCTAssertEqual(rights["copyright"] as? String, "(c) 2026 Ada Lovelace", "\(rights)")
        XCTAssertTrue((rights["xmp"] as? String ?? "").isEmpty, "\(rights)")
    }

    func testColourProfilesAreKeptInJPEGAndPNG() throws {
        let profile = try XCTUnwrap(try inspect(photos.appendingPathComponent("p3.jpg"))["icc_sha256"] as? String)
        let out = try submit(["p3.jpg", "o6-p3.png"], ["--filter", "brightness", "--quality", "95"])
        let jpeg = try inspect(out.appendingPathComponent("p3.jpg"), against: "upright.png")
        XCTAssertEqual(jpeg["icc_sha256"] as? String, profile, "the Display P3 profile travels with the pixels: \(jpeg)")
        XCTAssertLessThan(difference(jpeg).mean, 2.5, "\(jpeg)")
        let png = try inspect(out.appendingPathComponent("o6-p3.png"), against: "upright.png")
        XCTAssertEqual(png["format"] as? String, "PNG")
        XCTAssertEqual(png["icc_sha256"] as? String, profile, "iCCP read and written: \(png)")
        XCTAssertTrue(isUpright(png), "eXIf orientation applied: \(png)")
        XCTAssertEqual(difference(png).max, 0, "PNG is lossless and upright: \(png)")
    }

    func testThumbnailsShrinkWhileDecodingAndStayUpright() throws {
        // 451×300 upright; stored on its side: the JPEGs are decoded at half scale first.
        let fit = try submit(["o6.jpg", "o8.jpg", "o6-p3.png"], ["--filter", "thumbnail:width=64,height=64", "--quality", "95"])
        for name in ["o6.jpg", "o8.jpg", "o6-p3.png"] {
            let report = try inspect(fit.appendingPathComponent(name), against: "upright.png", resize: "64,43")
            XCTAssertEqual([report["width"] as? Int, report["height"] as? Int], [64, 43], "\(name): \(report)")
            XCTAssertTrue(isUpright(report), "\(name): \(report)")
            XCTAssertLessThan(difference(report).mean, 4, "\(name) is the photo, upright, averaged down: \(report)")
        }
        let fill = try submit(["o6.jpg"], ["--filter", "thumbnail:width=64,height=64,fill=1", "--quality", "95"])
        let filled = try inspect(fill.appendingPathComponent("o6.jpg"), against: "upright.png", resize: "96,64", crop: "16,0,64,64")
        XCTAssertEqual([filled["width"] as? Int, filled["height"] as? Int], [64, 64], "\(filled)")
        XCTAssertLessThan(difference(filled).mean, 4, "the middle of the photo: \(filled)")
    }

    func testColourConvertsToSRGBOnRequestAndCMYKByItsProfile() throws {
        let srgb = try submit(["p3.jpg", "o6-p3.png"], ["--filter", "brightness", "--colour", "srgb", "--quality", "95"])
        for name in ["p3.jpg", "o6-p3.png"] {
            // The photo's numbers were Display P3 colours: in sRGB they are what Little CMS (in Pillow) makes of them.
            let report = try inspect(srgb.appendingPathComponent(name), against: "upright.png", convertFrom: "display-p3.icc")
            XCTAssertTrue(report["icc_sha256"] is NSNull, "no profile: sRGB is what viewers assume: \(report)")
            XCTAssertLessThan(difference(report).mean, 2.5, "\(name): \(report)")
        }
        let unconverted = try inspect(srgb.appendingPathComponent("p3.jpg"), against: "upright.png")
        XCTAssertGreaterThan(difference(unconverted).mean, 3, "the conversion changed the pixels: \(unconverted)")

        guard FileManager.default.fileExists(atPath: photos.appendingPathComponent("cmyk.jpg").path) else {
            return XCTFail("Ghostscript's CMYK profile is missing: scripts/install-test-tools installs libgs-common")
        }
        let cmyk = try inspect(try submit(["cmyk.jpg"], ["--filter", "brightness", "--quality", "95"]).appendingPathComponent("cmyk.jpg"), against: "cmyk.jpg", convertFrom: "cmyk.icc")
        XCTAssertEqual(cmyk["mode"] as? String, "RGB", "\(cmyk)")
        XCTAssertTrue(cmyk["icc_sha256"] is NSNull, "the CMYK profile does not describe RGB pixels: \(cmyk)")
        XCTAssertLessThan(difference(cmyk).mean, 3, "converted by its profile, as Little CMS does: \(cmyk)")
    }

    func testGrayStaysGrayWhileTheFiltersKeepItGray() throws {
        let gray = try inspect(try submit(["gray.jpg"], ["--filter", "brightness:contrast=1.1"]).appendingPathComponent("gray.jpg"))
        XCTAssertEqual(gray["mode"] as? String, "L", "\(gray)")
        let png = try inspect(try submit(["gray.jpg"], ["--filter", "posterize", "--format", "png"]).appendingPathComponent("gray.png"))
        XCTAssertEqual(png["mode"] as? String, "L", "\(png)")
        let toned = try inspect(try submit(["gray.jpg"], ["--filter", "sepia"]).appendingPathComponent("gray.jpg"))
        XCTAssertEqual(toned["mode"] as? String, "RGB", "sepia makes it colour: \(toned)")
    }

    func testWebPInAndOutKeepsAlpha() throws {
        // A lossless WebP with alpha, on its side: upright, lossless, alpha kept.
        let lossless = try submit(["o6-alpha.webp"], ["--filter", "brightness", "--lossless", "--format", "webp"])
        let exact = try inspect(lossless.appendingPathComponent("o6-alpha.webp"), against: "translucent.png")
        XCTAssertEqual(exact["format"] as? String, "WEBP", "\(exact)")
        XCTAssertEqual(exact["has_alpha"] as? Bool, true, "\(exact)")
        XCTAssertTrue(isUpright(exact), "\(exact)")
        XCTAssertEqual(difference(exact).max, 0, "lossless: \(exact)")
        XCTAssertEqual(exact["alpha_difference"] as? Int, 0, "\(exact)")
        // Lossy WebP from a PNG with alpha: close, alpha kept.
        let lossy = try submit(["translucent.png"], ["--filter", "brightness", "--format", "webp", "--quality", "90"])
        let close = try inspect(lossy.appendingPathComponent("translucent.webp"), against: "translucent.png")
        XCTAssertEqual(close["format"] as? String, "WEBP", "\(close)")
        XCTAssertLessThan(difference(close).mean, 3, "\(close)")
        XCTAssertLessThanOrEqual(close["alpha_difference"] as? Int ?? 255, 8, "alpha kept: \(close)")
    }
}
