import PhotoClusterCore
import PhotoClusterImaging
import XCTest

/// JPEG colour spaces decode to RGBA with the expected colours.
final class JPEGDecodeTests: XCTestCase {
    private func decode(_ name: String) throws -> RGBAImage {
        let (image, format) = try ImageCodec.decode(fixture(name))
        XCTAssertEqual(format, .jpeg)
        return image
    }

    private func assertOpaque(_ image: RGBAImage, file: StaticString = #filePath, line: UInt = #line) {
        for i in 0..<image.pixelCount where image.pixels[i * 4 + 3] != 255 {
            XCTFail("pixel \(i) has alpha \(image.pixels[i * 4 + 3])", file: file, line: line)
            return
        }
    }

    func testGrayscaleGivesEqualChannels() throws {
        let image = try decode("gray.jpg")
        XCTAssertEqual(image.width, 16)
        XCTAssertEqual(image.height, 16)
        assertOpaque(image)
        for i in 0..<image.pixelCount {
            let p = image.pixels + i * 4
            XCTAssertTrue(p[0] == p[1] && p[1] == p[2], "pixel \(i) is not gray")
        }
        assertPixel(image, 2, 8, (64, 64, 64, 255), tolerance: 2)
        assertPixel(image, 13, 8, (192, 192, 192, 255), tolerance: 2)
    }

    func testYCbCr() throws {
        let image = try decode("rgb.jpg")
        XCTAssertEqual(image.width, 32)
        XCTAssertEqual(image.height, 16)
        assertOpaque(image)
        assertPixel(image, 4, 8, (200, 30, 40, 255), tolerance: 6)
        assertPixel(image, 27, 8, (20, 100, 220, 255), tolerance: 6)
    }

    func testAdobeCMYK() throws {
        let image = try decode("cmyk-adobe.jpg")
        XCTAssertEqual(image.width, 16)
        let c = Expected.cmykAsRGB
        assertPixel(image, 8, 8, (c.0, c.1, c.2, 255), tolerance: 4)
        assertOpaque(image)
    }

    func testPlainCMYKWithoutAdobeMarker() throws {
        let image = try decode("cmyk-plain.jpg")
        let c = Expected.cmykAsRGB
        assertPixel(image, 8, 8, (c.0, c.1, c.2, 255), tolerance: 4)
        assertOpaque(image)
    }

    func testRealPhotoAndProgressive() throws {
        let photo = try decode("clock.jpg")
        XCTAssertEqual(photo.width, 400)
        XCTAssertEqual(photo.height, 300)
        assertOpaque(photo)
        assertPixel(photo, 0, 0, (156, 156, 156, 255), tolerance: 3)

        let progressive = try decode("progressive.jpg")
        XCTAssertEqual(progressive.width, 100)
        XCTAssertEqual(progressive.height, 75)
        assertOpaque(progressive)
    }

    func testDecodesADataSliceWithOffset() throws {
        let bytes = try Data([0, 0, 0]) + fixture("gray.jpg")
        let slice = bytes[3...]
        XCTAssertEqual(slice.startIndex, 3)
        XCTAssertEqual(ImageCodec.sniff(slice), .jpeg)
        XCTAssertEqual(try ImageCodec.decode(slice).image.width, 16)
    }

    /// The codecs keep no global state, so parallel calls are independent.
    func testConcurrentDecodeAndEncode() throws {
        let data = try fixture("clock.jpg")
        let failures = FailureCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            do {
                let image = try ImageCodec.decode(data).image
                _ = try ImageCodec.encode(image, as: i.isMultiple(of: 2) ? .jpeg : .png)
            } catch {
                failures.increment()
            }
        }
        XCTAssertEqual(failures.value, 0)
    }
}

/// A lock-protected counter for the concurrency test.
private final class FailureCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
