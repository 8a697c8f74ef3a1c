import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import XCTest

/// Bad inputs fail with the right kind of error, quickly and without crashing.
final class BadInputTests: XCTestCase {
    func testEmpty() {
        assertCodecError(.empty, try ImageCodec.decode(Data()))
        XCTAssertNil(ImageCodec.sniff(Data()))
    }

    func testRandomBytesAndTextAreUnsupported() {
        var random = SeededRandom(seed: 1)
        let noise = Data((0..<1000).map { _ in UInt8.random(in: 0...255, using: &random) })
        assertCodecError(.unsupportedFormat, try ImageCodec.decode(noise))

        let html = Data("<html><body>404 Not Found</body></html>".utf8)
        let error = assertCodecError(.unsupportedFormat, try ImageCodec.decode(html))
        XCTAssertEqual(error?.message, "not an image (not a JPEG, PNG, WebP, HEIC, AVIF, TIFF, GIF or JPEG XL)")
        XCTAssertEqual(error?.description, "unsupportedFormat: not an image (not a JPEG, PNG, WebP, HEIC, AVIF, TIFF, GIF or JPEG XL)")

        assertCodecError(.unsupportedFormat, try ImageCodec.decode(Data([0xFF, 0xD8])))
    }

    func testMagicFollowedByGarbageIsCorrupt() {
        var random = SeededRandom(seed: 2)
        let garbage = Data((0..<500).map { _ in UInt8.random(in: 0...255, using: &random) })
        assertCodecError(.corrupt, try ImageCodec.decode(Data([0xFF, 0xD8, 0xFF]) + garbage))
        assertCodecError(.corrupt, try ImageCodec.decode(Data([0xFF, 0xD8, 0xFF])))
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        assertCodecError(.corrupt, try ImageCodec.decode(png + garbage))
        assertCodecError(.corrupt, try ImageCodec.decode(png))
    }

    func testTruncatedJPEGFails() throws {
        for name in ["clock.jpg", "progressive.jpg"] {
            let whole = try fixture(name)
            let error = assertCodecError(.corrupt, try ImageCodec.decode(whole.prefix(whole.count / 2)))
            XCTAssertEqual(error?.message, "JPEG data is truncated")
        }
    }

    /// Only the EOI marker missing loses no pixels; any cut into the entropy data fails.
    func testJPEGWithoutEOIStillDecodesButShorterFails() throws {
        for name in ["clock.jpg", "gray.jpg", "rgb.jpg", "cmyk-adobe.jpg"] {
            let whole = try fixture(name)
            XCTAssertEqual(whole.suffix(2), Data([0xFF, 0xD9]))
            XCTAssertNoThrow(try ImageCodec.decode(whole.dropLast(2)), name)
            for cut in 3...40 {
                let error = assertCodecError(.corrupt, try ImageCodec.decode(whole.dropLast(cut)))
                XCTAssertEqual(error?.message, "JPEG data is truncated", "\(name) cut by \(cut)")
            }
        }
    }

    func testTruncatedPNGFails() throws {
        let whole = try ImageCodec.encode(makeImage(width: 64, height: 64, alpha: true), as: .png)
        for length in [whole.count / 2, whole.count - 13, 40, 20] {
            assertCodecError(.corrupt, try ImageCodec.decode(whole.prefix(length)))
        }
    }

    func testPNGWithCorruptIDATFails() throws {
        let good = try fixture("rgb8.png")
        let badCRC = assertCodecError(.corrupt, try ImageCodec.decode(ByteSurgery.pngCorruptingIDAT(good, inCRC: true)))
        XCTAssertTrue(badCRC?.message.contains("CRC") ?? false, badCRC?.message ?? "")
        // zlib or the row filters notice a damaged stream before the CRC is checked.
        assertCodecError(.corrupt, try ImageCodec.decode(ByteSurgery.pngCorruptingIDAT(good, inCRC: false)))
    }

    func testJPEGDeclaringHugeSizeIsTooLargeBeforeAllocating() throws {
        let huge = ByteSurgery.jpeg(try fixture("clock.jpg"), settingWidth: 64250, height: 64250)
        let start = Date()
        let error = assertCodecError(.tooLarge, try ImageCodec.decode(huge))
        XCTAssertLessThan(Date().timeIntervalSince(start), 1)
        XCTAssertEqual(error?.message, "image is 64250x64250 pixels, over the limit of 100000000")

        // Past libjpeg's own 65500 limit.
        let huger = ByteSurgery.jpeg(try fixture("clock.jpg"), settingWidth: 65535, height: 65535)
        assertCodecError(.tooLarge, try ImageCodec.decode(huger))
    }

    func testJPEGWithZeroWidthIsCorrupt() throws {
        let zero = ByteSurgery.jpeg(try fixture("gray.jpg"), settingWidth: 0, height: 16)
        assertCodecError(.corrupt, try ImageCodec.decode(zero))
    }

    func testProgressiveJPEGWithEndlessScansIsRejected() throws {
        let bytes = [UInt8](try fixture("progressive.jpg"))
        let lastScan = try XCTUnwrap((0..<bytes.count - 1).last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let scan = bytes[lastScan..<(bytes.count - 2)]
        var flood = Array(bytes[..<(bytes.count - 2)])
        for _ in 0..<600 { flood += scan }
        flood += [0xFF, 0xD9]
        let scans = (0..<bytes.count - 1).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }.count + 600
        // The whole count is in the message: the scans were counted before any was decoded (the
        // decoder's own check between scans stops at the first one past the cap).
        let error = assertCodecError(.corrupt, try ImageCodec.decode(Data(flood)))
        XCTAssertEqual(error?.message, "JPEG has \(scans) scans, more than the \(ImageCodec.maxJPEGScans) a photo may have")
    }

    func testPNGDeclaringHugeSizeIsTooLarge() {
        let error = assertCodecError(.tooLarge, try ImageCodec.decode(ByteSurgery.pngHeader(width: 100_000, height: 100_000)))
        XCTAssertEqual(error?.message, "image is 100000x100000 pixels, over the limit of 100000000")
        // Few pixels, but wider than libpng accepts.
        assertCodecError(.tooLarge, try ImageCodec.decode(ByteSurgery.pngHeader(width: 2_000_000, height: 1)))
        assertCodecError(.tooLarge, try ImageCodec.decode(ByteSurgery.pngHeader(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF)))
    }

    func testPNGWithZeroSideIsCorrupt() {
        assertCodecError(.corrupt, try ImageCodec.decode(ByteSurgery.pngHeader(width: 0, height: 5)))
    }

    func testPixelCap() throws {
        let jpeg = try fixture("clock.jpg") // 400x300 = 120,000 pixels
        let error = assertCodecError(.tooLarge, try ImageCodec.decode(jpeg, maxPixels: 119_999))
        XCTAssertEqual(error?.message, "image is 400x300 pixels, over the limit of 119999")
        XCTAssertEqual(try ImageCodec.decode(jpeg, maxPixels: 120_000).image.pixelCount, 120_000)

        let png = try fixture("rgb8.png") // 4x3
        assertCodecError(.tooLarge, try ImageCodec.decode(png, maxPixels: 11))
        XCTAssertEqual(try ImageCodec.decode(png, maxPixels: 12).image.pixelCount, 12)

        assertCodecError(.tooLarge, try ImageCodec.decode(png, maxPixels: 0))
        assertCodecError(.tooLarge, try ImageCodec.decode(png, maxPixels: -1))
    }

    /// Truncations and byte flips of valid files either decode or throw; none may crash.
    func testMutatedFilesNeverCrash() throws {
        var random = SeededRandom(seed: 3)
        let sources = [
            try fixture("clock.jpg"), try fixture("progressive.jpg"), try fixture("cmyk-adobe.jpg"),
            try fixture("palette4-trns.png"), try fixture("rgba16.png"),
            try ImageCodec.encode(makeImage(width: 40, height: 30, alpha: true), as: .png),
        ]
        for source in sources {
            for _ in 0..<60 {
                var bytes = [UInt8](source)
                if Bool.random(using: &random) {
                    bytes.removeLast(Int.random(in: 1..<bytes.count - 8, using: &random))
                }
                for _ in 0..<Int.random(in: 0...4, using: &random) {
                    bytes[Int.random(in: 8..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
                do {
                    let image = try ImageCodec.decode(Data(bytes), maxPixels: 10_000_000).image
                    XCTAssertGreaterThan(image.pixelCount, 0)
                } catch let error as ImageCodecError {
                    XCTAssertFalse(error.message.isEmpty)
                }
            }
        }
    }
}
