import PhotoClusterCore
import PhotoClusterImaging
import XCTest

final class RoundTripTests: XCTestCase {
    private func assertSamePixels(_ a: RGBAImage, _ b: RGBAImage, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.width, b.width, file: file, line: line)
        XCTAssertEqual(a.height, b.height, file: file, line: line)
        guard a.width == b.width, a.height == b.height else { return }
        XCTAssertEqual(memcmp(a.pixels, b.pixels, a.byteCount), 0, "pixels differ", file: file, line: line)
    }

    func testPNGIsLosslessWithAndWithoutAlpha() throws {
        for alpha in [true, false] {
            let original = makeImage(width: 67, height: 41, alpha: alpha)
            let data = try ImageCodec.encode(original, as: .png)
            XCTAssertEqual(ImageCodec.sniff(data), .png)
            let (decoded, format) = try ImageCodec.decode(data)
            XCTAssertEqual(format, .png)
            assertSamePixels(original, decoded)
        }
    }

    func testOpaquePNGIsStoredAsRGB() throws {
        let opaque = try ImageCodec.encode(makeImage(width: 8, height: 8, alpha: false), as: .png)
        let translucent = try ImageCodec.encode(makeImage(width: 8, height: 8, alpha: true), as: .png)
        XCTAssertEqual(opaque[opaque.startIndex + 25], 2, "IHDR colour type RGB")
        XCTAssertEqual(translucent[translucent.startIndex + 25], 6, "IHDR colour type RGBA")
    }

    func testFixtureReencodesLosslessly() throws {
        for name in ["rgba8.png", "palette4-trns.png", "gray16.png"] {
            let original = try ImageCodec.decode(fixture(name)).image
            let again = try ImageCodec.decode(ImageCodec.encode(original, as: .png)).image
            assertSamePixels(original, again)
        }
    }

    func testJPEGIsCloseAndOpaque() throws {
        let original = makeImage(width: 64, height: 48, alpha: true)
        let data = try ImageCodec.encode(original, as: .jpeg, quality: 90)
        XCTAssertEqual(ImageCodec.sniff(data), .jpeg)
        let (decoded, format) = try ImageCodec.decode(data)
        XCTAssertEqual(format, .jpeg)
        XCTAssertEqual(decoded.width, 64)
        XCTAssertEqual(decoded.height, 48)
        XCTAssertLessThan(meanAbsoluteRGBError(original, decoded), 2.0)
        XCTAssertTrue((0..<decoded.pixelCount).allSatisfy { decoded.pixels[$0 * 4 + 3] == 255 })
    }

    func testJPEGQualityControlsSizeAndError() throws {
        let photo = try ImageCodec.decode(fixture("clock.jpg")).image
        let low = try ImageCodec.encode(photo, as: .jpeg, quality: 20)
        let mid = try ImageCodec.encode(photo, as: .jpeg, quality: 60)
        let high = try ImageCodec.encode(photo, as: .jpeg, quality: 95)
        XCTAssertLessThan(low.count, mid.count)
        XCTAssertLessThan(mid.count, high.count)
        let lowError = meanAbsoluteRGBError(photo, try ImageCodec.decode(low).image)
        let highError = meanAbsoluteRGBError(photo, try ImageCodec.decode(high).image)
        XCTAssertLessThan(highError, lowError)
        XCTAssertLessThan(highError, 2.0)
    }

    func testOutOfRangeQualityIsClamped() throws {
        let image = makeImage(width: 16, height: 16, alpha: false)
        XCTAssertEqual(try ImageCodec.encode(image, as: .jpeg, quality: -5), try ImageCodec.encode(image, as: .jpeg, quality: 1))
        XCTAssertEqual(try ImageCodec.encode(image, as: .jpeg, quality: 1000), try ImageCodec.encode(image, as: .jpeg, quality: 100))
    }

    func testOddSizesAndSinglePixel() throws {
        for (w, h) in [(1, 1), (1, 17), (33, 1), (17, 9)] {
            let image = makeImage(width: w, height: h, alpha: false)
            for format in ImageFormat.writable {
                let decoded = try ImageCodec.decode(ImageCodec.encode(image, as: format)).image
                XCTAssertEqual(decoded.width, w)
                XCTAssertEqual(decoded.height, h)
            }
        }
    }

    func testEncodeRejectsImagesItCannotWrite() {
        let empty = RGBAImage(width: 0, height: 3, adoptingMallocedPixels: malloc(4)!.assumingMemoryBound(to: UInt8.self))
        for format in ImageFormat.allCases {
            assertCodecError(.encodeFailed, try ImageCodec.encode(empty, as: format))
        }
        let tooWide = RGBAImage(width: 70_000, height: 1)!
        assertCodecError(.encodeFailed, try ImageCodec.encode(tooWide, as: .jpeg))
    }

    func testFormatNames() {
        XCTAssertEqual(ImageFormat.jpeg.fileExtension, "jpg")
        XCTAssertEqual(ImageFormat.png.fileExtension, "png")
        XCTAssertEqual(ImageFormat.webp.fileExtension, "webp")
        XCTAssertEqual(ImageFormat.allCases.map(\.rawValue), ["jpeg", "png", "webp", "heif", "avif", "tiff", "gif", "jxl"])
        XCTAssertEqual(ImageFormat.writable, [.jpeg, .png, .webp, .avif])
        XCTAssertEqual(ImageFormat.allCases.map(\.keptAs), [.jpeg, .png, .webp, .jpeg, .avif, .jpeg, .png, .jpeg])
    }
}
