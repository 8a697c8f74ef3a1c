import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import XCTest

/// Point filters applied by the encoder band by band give exactly the file that filtering the
/// whole image first gives, leave the image as it was, and an encode can be stopped between bands.
final class BandedEncodeTests: XCTestCase {
    /// Random pixels with some transparency, an odd size and more rows than one band.
    private func randomImage(width: Int = 37, height: Int = 53, seed: UInt64) -> RGBAImage {
        var generator = SeededRandom(seed: seed)
        let image = RGBAImage(width: width, height: height)!
        for index in 0..<image.byteCount { image.pixels[index] = UInt8(truncatingIfNeeded: generator.next()) }
        for pixel in stride(from: 3, to: image.byteCount, by: 8) { image.pixels[pixel] = 255 }
        return image
    }

    private let sepia = SepiaFilter()
    private func parameters(_ intensity: Double) -> FilterParameters { FilterParameters(["intensity": intensity]) }

    func testATransformInTheEncoderGivesTheSameFileAsFilteringFirst() throws {
        for format in [ImageFormat.jpeg, .png] {
            for (seed, intensity) in [(1, 0.8), (2, 1.0), (3, 0.35)] {
                let image = randomImage(seed: UInt64(seed))
                let before = Data(UnsafeBufferPointer(start: image.pixels, count: image.byteCount))
                let filtered = try sepia.apply(toCopyOf: image, parameters: parameters(intensity)) { false }
                let expected = try ImageCodec.encode(filtered, as: format, quality: 85)
                let banded = try ImageCodec.encode(image, as: format, quality: 85, transform: sepia.pixelTransform(parameters: parameters(intensity)))
                XCTAssertEqual(banded, expected, "\(format) at intensity \(intensity)")
                XCTAssertEqual(Data(UnsafeBufferPointer(start: image.pixels, count: image.byteCount)), before, "the source image is left as it was")
            }
        }
    }

    /// Every built-in point filter, not only sepia, gives the same file inside the encoder.
    func testEveryBuiltInPointFilterGivesTheSameFileInsideTheEncoder() throws {
        let registry = FilterRegistry.builtIn
        let points = registry.names.filter { registry.stages[$0] is PointFilter }
        XCTAssertEqual(points, ["brightness", "grayscale", "posterize", "sepia"])
        let image = randomImage(seed: 11)
        for text in ["brightness:brightness=0.2,contrast=1.7", "grayscale", "posterize:levels=5", "sepia:intensity=0.6"] {
            let filter = try registry.resolve(text)
            let transform = try XCTUnwrap(filter.pixelTransform, text)
            let filtered = try filter.stage.apply(toCopyOf: image, parameters: filter.parameters) { false }
            for format in [ImageFormat.jpeg, .png] {
                XCTAssertEqual(
                    try ImageCodec.encode(image, as: format, quality: 85, transform: transform),
                    try ImageCodec.encode(filtered, as: format, quality: 85), "\(text) as \(format)")
            }
        }
    }

    func testChainedTransformsRunInOrder() throws {
        let image = randomImage(seed: 9)
        let once = try sepia.apply(toCopyOf: image, parameters: parameters(0.5)) { false }
        let twice = try sepia.apply(to: once, parameters: parameters(0.9)) { false }
        let chain = chained([sepia.pixelTransform(parameters: parameters(0.5)), sepia.pixelTransform(parameters: parameters(0.9))])
        XCTAssertEqual(try ImageCodec.encode(image, as: .png, transform: chain), try ImageCodec.encode(twice, as: .png))
        XCTAssertNil(chained([]))
    }

    func testAnEncodeStopsBetweenBandsWhenAsked() throws {
        let image = randomImage(width: 64, height: 200, seed: 4)
        for format in [ImageFormat.jpeg, .png] {
            for transform in [nil, sepia.pixelTransform(parameters: parameters(0.8))] {
                var asked = 0
                XCTAssertThrowsError(try ImageCodec.encode(image, as: format, transform: transform, shouldStop: {
                    asked += 1
                    return asked == 3
                })) { error in
                    XCTAssertTrue(error is EncodeStopped, "\(error)")
                }
                XCTAssertEqual(asked, 3, "asked once per band until it said stop")
            }
            var bands = 0
            _ = try ImageCodec.encode(image, as: format, shouldStop: {
                bands += 1
                return false
            })
            XCTAssertEqual(bands, (200 + 15) / 16, "one question per band of 16 rows")
        }
    }

    /// The encoder's output buffer grows as it goes; a stop after it has grown must free the
    /// buffer it has now, once (libjpeg's memory destination would have freed it twice).
    func testAnEncodeStoppedAfterItsOutputGrewFreesItOnce() throws {
        let image = randomImage(width: 512, height: 512, seed: 5)  // noise: ~20 KB per band at quality 100
        for format in [ImageFormat.jpeg, .png] {
            for _ in 0..<20 {
                var bands = 0
                XCTAssertThrowsError(try ImageCodec.encode(image, as: format, quality: 100, shouldStop: {
                    bands += 1
                    return bands == 12
                })) { XCTAssertTrue($0 is EncodeStopped, "\($0)") }
            }
            XCTAssertGreaterThan(try ImageCodec.encode(image, as: format, quality: 100).count, 64 * 1024, "the output outgrew its first buffer")
        }
    }
}
