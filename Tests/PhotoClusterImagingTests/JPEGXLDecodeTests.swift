import Foundation
import PhotoClusterCore
@testable import PhotoClusterImaging
import PhotoClusterTestSupport
import XCTest

/// JPEG XL files made by cjxl (Tests/Imaging/jxl_photos.py) decode to the picture they were made
/// from, recognised by content; a truncated file and a header claiming a huge size fail with a
/// reason naming JPEG XL.
final class JPEGXLDecodeTests: XCTestCase {
    private static var made: URL?
    private static let python = Repository.root.appendingPathComponent(".build-test-tools/venv/bin/python")
    private static let helper = Repository.root.appendingPathComponent("Tests/Imaging/jxl_photos.py")

    override class func tearDown() {
        if let made { try? FileManager.default.removeItem(at: made) }
        made = nil
    }

    /// The files, made once for the class (about a second of encoding).
    private func files() throws -> URL {
        if let made = Self.made { return made }
        guard FileManager.default.isExecutableFile(atPath: Self.python.path), FileManager.default.isExecutableFile(atPath: "/usr/bin/cjxl") else {
            throw XCTSkip("Pillow's venv or cjxl is missing: run scripts/install-test-tools (make test does)")
        }
        let directory = Repository.temporaryDirectory("jxl")
        let log = directory.appendingPathComponent("log")
        let source = Repository.samplePhotos.appendingPathComponent("chelsea.jpg")
        let child = try ChildProcess(Self.python.path, [Self.helper.path, "make", source.path, directory.path], output: log)
        XCTAssertTrue(child.waitForExit(timeout: 60))
        guard child.status == 0 else { throw XCTSkip("jxl_photos.py make failed: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")") }
        Self.made = directory
        return directory
    }

    private func data(_ name: String) throws -> Data { try Data(contentsOf: files().appendingPathComponent(name)) }

    private func source() throws -> RGBAImage { try ImageCodec.decode(data("source.png")).image }

    func testLosslessIsExactAndLossyIsCloseInBothWrappings() throws {
        let picture = try source()
        for (name, floor) in [("lossless.jxl", 99.0), ("lossy.jxl", 40)] {
            let bytes = try data(name)
            XCTAssertEqual(ImageCodec.sniff(bytes), .jxl, name)
            let header = try ImageCodec.inspect(bytes)
            XCTAssertEqual([header.width, header.height], [384, 256], name)
            XCTAssertEqual(header.metadata.orientation, .up, name)
            XCTAssertGreaterThanOrEqual(header.decoderScratchBytes, 384 * 256 * 16, "a 32-bit plane a channel: \(name)")
            XCTAssertNil(header.metadata.iccProfile, "sRGB needs no profile: \(name)")
            let decoded = try ImageCodec.decode(bytes, options: DecodeOptions())
            XCTAssertEqual(decoded.format, .jxl)
            XCTAssertFalse(decoded.isGray)
            XCTAssertGreaterThanOrEqual(psnr(decoded.image, picture), floor, name)
        }
        XCTAssertEqual(try data("lossless.jxl").prefix(2), Data([0xFF, 0x0A]), "a bare codestream")
        XCTAssertEqual(try data("lossy.jxl").subdata(in: 4..<8), Data("JXL ".utf8), "the container")
        let lossless = try ImageCodec.decode(data("lossless.jxl"), options: DecodeOptions()).image
        XCTAssertTrue(memcmp(lossless.pixels, picture.pixels, picture.pixelCount * 4) == 0, "lossless is exact")
    }

    func testSixteenBitSamplesAreScaledTo8BitsNotCut() throws {
        let decoded = try ImageCodec.decode(data("sixteen.jxl"), options: DecodeOptions()).image
        let picture = try source()
        // Each sample is v * 257 ± 96: scaled it is v again (or one level off); cut to its low byte it is noise.
        let worst = (0..<picture.pixelCount * 4).map { abs(Int(decoded.pixels[$0]) - Int(picture.pixels[$0])) }.max() ?? 255
        XCTAssertLessThanOrEqual(worst, 1)
    }

    func testAGrayFileStaysGray() throws {
        let decoded = try ImageCodec.decode(data("gray.jxl"), options: DecodeOptions())
        XCTAssertTrue(decoded.isGray)
        let png = try ImageCodec.decode(data("gray.png")).image
        XCTAssertTrue(memcmp(decoded.image.pixels, png.pixels, png.pixelCount * 4) == 0, "gray repeated in red, green and blue, exactly")
    }

    func testTheCodestreamsOrientationIsAppliedOnce() throws {
        // cjxl moved the JPEG's EXIF orientation 6 into the codestream header while transcoding.
        let bytes = try data("oriented.jxl")
        let header = try ImageCodec.inspect(bytes)
        XCTAssertEqual([header.width, header.height], [384, 256], "upright size")
        XCTAssertEqual(header.metadata.orientation, .up, "turned by libjxl, never again")
        let exif = try XCTUnwrap(header.metadata.exif, "cjxl kept the JPEG's EXIF in an Exif box")
        XCTAssertEqual(Exif.orientation(in: exif), .up, "a viewer of a `keep` output must not turn it again either")
        let decoded = try ImageCodec.decode(bytes, options: DecodeOptions()).image
        XCTAssertGreaterThanOrEqual(psnr(decoded, try source()), 35, "the picture upright (a quality-95 JPEG of it)")
    }

    func testEXIFAndXMPAreReadFromTheirBrotliCompressedBoxes() throws {
        let header = try ImageCodec.inspect(data("meta.jxl"))
        let exif = try XCTUnwrap(header.metadata.exif, "the Exif box")
        XCTAssertTrue(["II", "MM"].contains(String(decoding: exif.prefix(2), as: UTF8.self)), "TIFF-structured, its offset prefix gone")
        XCTAssertNotNil(exif.range(of: Data("PhotoCluster Test Camera".utf8)), "Make, as Pillow wrote it")
        let xmp = try XCTUnwrap(header.metadata.xmp, "the xml box")
        XCTAssertTrue(String(decoding: xmp, as: UTF8.self).contains("A cat in JPEG XL"))
        let bare = try ImageCodec.inspect(data("lossless.jxl"))
        XCTAssertNil(bare.metadata.exif, "a bare codestream has no boxes")
        XCTAssertNil(bare.metadata.xmp)
    }

    func testADisplayP3FileConvertsToSRGBAsItsPNGDoes() throws {
        let header = try ImageCodec.inspect(data("p3.jxl"))
        XCTAssertNotNil(header.metadata.iccProfile, "the profile of the pixels libjxl hands over")
        let jxl = try ImageCodec.decode(data("p3.jxl"), options: DecodeOptions(toSRGB: true))
        let png = try ImageCodec.decode(data("p3.png"), options: DecodeOptions(toSRGB: true))
        XCTAssertTrue(jxl.isConverted && png.isConverted)
        let unconverted = try ImageCodec.decode(data("p3.jxl"), options: DecodeOptions())
        let converted = psnr(jxl.image, png.image), left = psnr(unconverted.image, png.image)
        XCTAssertGreaterThanOrEqual(converted, 38, "the same colours through the same conversion")
        XCTAssertGreaterThan(converted, left + 3, "converted by its profile, not left as P3 (\(left) dB)")
    }

    func testAnAnimationGivesItsFirstFrame() throws {
        let decoded = try ImageCodec.decode(data("animation.jxl"), options: DecodeOptions()).image
        XCTAssertEqual([decoded.width, decoded.height], [64, 48])
        XCTAssertEqual([decoded[10, 10].r, decoded[10, 10].g, decoded[10, 10].b, decoded[10, 10].a], [255, 0, 0, 255], "red, the first frame")
    }

    func testShrinkOnLoadAndStopsBetweenEvents() throws {
        let decoded = try ImageCodec.decode(data("lossy.jxl"), options: DecodeOptions(reduceTo: ImageSize(width: 96, height: 64)))
        XCTAssertTrue(decoded.isReduced)
        XCTAssertEqual([decoded.image.width, decoded.image.height], [96, 64])
        var asked = 0
        XCTAssertThrowsError(try ImageCodec.decode(data("lossless.jxl"), options: DecodeOptions(), shouldStop: {
            asked += 1
            return asked == 2
        })) { XCTAssertTrue($0 is DecodeStopped, "\($0)") }
        XCTAssertEqual(asked, 2, "asked again after the first event")
    }

    func testATruncatedFileFailsNamingJPEGXL() throws {
        for name in ["lossless.jxl", "lossy.jxl"] {
            let whole = try data(name)
            let cut = assertCodecError(.corrupt, try ImageCodec.decode(whole.prefix(whole.count / 2), options: DecodeOptions()))
            XCTAssertTrue(cut?.message.hasPrefix("JPEG XL") == true, cut?.message ?? "")
            XCTAssertTrue(cut?.message.contains("image data") == true, cut?.message ?? "")
        }
        let header = assertCodecError(.corrupt, try ImageCodec.inspect(Data([0xFF, 0x0A, 0x3F])))
        XCTAssertTrue(header?.message.hasPrefix("JPEG XL header") == true, header?.message ?? "")
    }

    func testAHeaderClaimingAHugeSizeIsRefusedByThePixelCap() throws {
        let huge = Self.codestreamHeader(side: 40000)
        XCTAssertEqual(ImageCodec.sniff(huge), .jxl)
        let header = try ImageCodec.inspect(huge)
        XCTAssertEqual([header.width, header.height], [40000, 40000])
        XCTAssertGreaterThanOrEqual(header.decoderScratchBytes, 40000 * 40000 * 16, "the budget sees the frame libjxl would hold")
        let refused = assertCodecError(.tooLarge, try ImageCodec.decode(huge, options: DecodeOptions()))
        XCTAssertEqual(refused?.message, "JPEG XL header: image is 40000x40000 pixels, over the limit of 100000000")
    }

    /// A bare codestream's signature and headers for a square of `side` pixels (18-bit size
    /// field, ratio 1:1), default image metadata and transform data, then zeros: no pixels.
    static func codestreamHeader(side: Int) -> Data {
        var bits: [Bool] = []
        func put(_ value: Int, _ count: Int) { for i in 0..<count { bits.append(value >> i & 1 == 1) } }
        put(0, 1)  // not a multiple-of-8 small size
        put(2, 2)  // the height's U32 selector: 18 bits, plus 1
        put(side - 1, 18)
        put(1, 3)  // width ratio 1:1
        put(1, 1)  // image metadata: all default (8-bit sRGB, upright)
        put(1, 1)  // transform data: all default
        var bytes = [UInt8](repeating: 0, count: (bits.count + 7) / 8 + 64)
        for (i, bit) in bits.enumerated() where bit { bytes[i / 8] |= 1 << (i % 8) }
        return Data([0xFF, 0x0A] + bytes)
    }

    private func psnr(_ a: RGBAImage, _ b: RGBAImage) -> Double {
        guard a.width == b.width, a.height == b.height else { return 0 }
        var total = 0.0
        for i in 0..<a.pixelCount {
            for c in 0..<3 {
                let d = Double(Int(a.pixels[i * 4 + c]) - Int(b.pixels[i * 4 + c]))
                total += d * d
            }
        }
        return total == 0 ? 99 : 10 * log10(255 * 255 / (total / Double(a.pixelCount * 3)))
    }
}
