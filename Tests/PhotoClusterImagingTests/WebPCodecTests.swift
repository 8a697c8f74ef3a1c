import Foundation
import PhotoClusterCore
@testable import PhotoClusterImaging
import XCTest

/// WebP through libwebp: lossless is exact with alpha, lossy keeps alpha, metadata goes in
/// chunks of an extended file, point filters and stops work band by band as for JPEG and PNG,
/// and libwebp's own compression can be stopped too.
final class WebPCodecTests: XCTestCase {
    private let sepia = SepiaFilter()

    func testLosslessIsExactAndLossyKeepsAlpha() throws {
        let image = makeImage(width: 67, height: 41, alpha: true)
        let lossless = try ImageCodec.encode(image, as: .webp, options: EncodeOptions(lossless: true))
        XCTAssertEqual(ImageCodec.sniff(lossless), .webp)
        let exact = try ImageCodec.decode(lossless)
        XCTAssertEqual(exact.format, .webp)
        XCTAssertEqual(memcmp(exact.image.pixels, image.pixels, image.byteCount), 0, "lossless, alpha and colour under it")

        let lossy = try ImageCodec.decode(ImageCodec.encode(image, as: .webp, quality: 90)).image
        XCTAssertLessThan(meanAbsoluteRGBError(image, lossy), 4)
        let alphaError = (0..<image.pixelCount).map { abs(Int(image.pixels[$0 * 4 + 3]) - Int(lossy.pixels[$0 * 4 + 3])) }.max() ?? 255
        XCTAssertLessThanOrEqual(alphaError, 8, "alpha kept")
    }

    func testMetadataGoesInChunksAndSizeIsRead() throws {
        let profile = try fixture("srgb.icc")
        let exif = Exif.minimal(orientation: .right, artist: "Ada")
        let xmp = Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        for options in [EncodeOptions(quality: 80), EncodeOptions(lossless: true)] {
            var withMetadata = options
            (withMetadata.iccProfile, withMetadata.exif, withMetadata.xmp) = (profile, exif, xmp)
            let data = try ImageCodec.encode(makeImage(width: 9, height: 5, alpha: false), as: .webp, options: withMetadata)
            let header = try ImageCodec.inspect(data)
            XCTAssertEqual([header.width, header.height], [9, 5])
            XCTAssertEqual(header.metadata.iccProfile, profile)
            XCTAssertEqual(header.metadata.exif, exif)
            XCTAssertEqual(header.metadata.xmp, xmp)
            XCTAssertEqual(header.metadata.orientation, .right)
            let plain = try ImageCodec.inspect(ImageCodec.encode(makeImage(width: 9, height: 5, alpha: false), as: .webp, options: options))
            XCTAssertEqual([plain.width, plain.height], [9, 5], "simple VP8 and VP8L files too")
        }
    }

    func testATransformInTheEncoderGivesTheSameFileAsFilteringFirst() throws {
        let image = makeImage(width: 37, height: 53, alpha: true)
        let parameters = FilterParameters(["intensity": 0.8])
        let filtered = try sepia.apply(toCopyOf: image, parameters: parameters) { false }
        XCTAssertEqual(
            try ImageCodec.encode(image, as: .webp, quality: 85, transform: sepia.pixelTransform(parameters: parameters)),
            try ImageCodec.encode(filtered, as: .webp, quality: 85))
    }

    func testAnEncodeStopsBetweenBandsAndInsideLibwebp() throws {
        let image = makeImage(width: 64, height: 200, alpha: false)
        var asked = 0
        XCTAssertThrowsError(try ImageCodec.encode(image, as: .webp, shouldStop: {
            asked += 1
            return asked == 3
        })) { XCTAssertTrue($0 is EncodeStopped, "\($0)") }
        XCTAssertEqual(asked, 3, "asked once per band while the picture is filled")
        // Past the 13 bands, libwebp's progress reports ask again while it compresses.
        var later = 0
        XCTAssertThrowsError(try ImageCodec.encode(image, as: .webp, shouldStop: {
            later += 1
            return later == 15
        })) { XCTAssertTrue($0 is EncodeStopped, "\($0)") }
    }

    func testReducedWhileDecoding() throws {
        let data = try ImageCodec.encode(makeImage(width: 300, height: 200, alpha: true), as: .webp, options: EncodeOptions(lossless: true))
        let reduced = try ImageCodec.decode(data, options: DecodeOptions(reduceTo: ImageSize(width: 75, height: 50)))
        XCTAssertTrue(reduced.isReduced)
        XCTAssertEqual([reduced.image.width, reduced.image.height], [75, 50])
        let expected = try Resample.area(ImageCodec.decode(data).image, to: ImageSize(width: 75, height: 50), filter: "test", isCancelled: { false })
        XCTAssertLessThan(meanAbsoluteRGBError(reduced.image, expected), 2)
    }

    func testBrokenWebPFailsClearly() throws {
        let data = try ImageCodec.encode(makeImage(width: 64, height: 64, alpha: false), as: .webp, quality: 80)
        let error = assertCodecError(.corrupt, try ImageCodec.decode(Data(data.prefix(data.count / 2))))
        XCTAssertTrue(error?.message.contains("WebP") == true, "\(String(describing: error))")
    }
}
