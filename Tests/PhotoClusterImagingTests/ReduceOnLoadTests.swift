import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import XCTest

/// Shrinking while decoding: the exact size asked for, the same area averaging as the `resize`
/// filter (exactly, for PNG read row by row), and close to it after JPEG's DCT scaling.
final class ReduceOnLoadTests: XCTestCase {
    private func reference(_ data: Data, to size: ImageSize) throws -> RGBAImage {
        try Resample.area(ImageCodec.decode(data).image, to: size, filter: "test", isCancelled: { false })
    }

    func testPNGRowsGoStraightIntoTheSameAreaAverage() throws {
        for alpha in [false, true] {
            let png = try ImageCodec.encode(makeImage(width: 301, height: 203, alpha: alpha), as: .png)
            let size = ImageSize(width: 100, height: 67)
            let reduced = try ImageCodec.decode(png, options: DecodeOptions(reduceTo: size))
            XCTAssertTrue(reduced.isReduced)
            XCTAssertEqual([reduced.image.width, reduced.image.height], [100, 67])
            let expected = try reference(png, to: size)
            let worst = (0..<reduced.image.byteCount).map { abs(Int(reduced.image.pixels[$0]) - Int(expected.pixels[$0])) }.max()
            XCTAssertLessThanOrEqual(worst ?? 99, 1, "alpha \(alpha): rounding apart, the filter's own result")
        }
    }

    func testJPEGIsDecodedAtAReducedScaleThenAveraged() throws {
        let photo = try ImageCodec.decode(fixture("clock.jpg")).image  // a real 400×300 photo
        let large = try Resample.area(photo, to: ImageSize(width: 1600, height: 1200), filter: "test", isCancelled: { false })
        let jpeg = try ImageCodec.encode(large, as: .jpeg, quality: 95)
        for size in [ImageSize(width: 200, height: 150), ImageSize(width: 640, height: 480), ImageSize(width: 1599, height: 1200)] {
            let reduced = try ImageCodec.decode(jpeg, options: DecodeOptions(reduceTo: size))
            XCTAssertTrue(reduced.isReduced, "\(size)")
            XCTAssertEqual([reduced.image.width, reduced.image.height], [size.width, size.height])
            let difference = meanAbsoluteRGBError(reduced.image, try reference(jpeg, to: size))
            XCTAssertLessThan(difference, 2.0, "\(size): DCT scaling leaves the picture as averaging does")
        }
    }

    func testGrowingOrEqualSizesDecodeWhole() throws {
        let jpeg = try fixture("gray.jpg")  // 16×16 gray
        for size in [ImageSize(width: 32, height: 32), ImageSize(width: 16, height: 16), ImageSize(width: 8, height: 20)] {
            let decoded = try ImageCodec.decode(jpeg, options: DecodeOptions(reduceTo: size))
            XCTAssertFalse(decoded.isReduced, "\(size)")
            XCTAssertEqual([decoded.image.width, decoded.image.height], [16, 16])
        }
        let reduced = try ImageCodec.decode(jpeg, options: DecodeOptions(reduceTo: ImageSize(width: 4, height: 4)))
        XCTAssertTrue(reduced.isReduced && reduced.isGray)
        XCTAssertEqual(reduced.image.width, 4)
    }

    func testTruncatedInputsStillFailWhenReducing() throws {
        let png = try ImageCodec.encode(makeImage(width: 64, height: 64, alpha: false), as: .png)
        let jpeg = try ImageCodec.encode(makeImage(width: 64, height: 64, alpha: false), as: .jpeg)
        for data in [png.prefix(png.count / 2), jpeg.prefix(jpeg.count / 2)] {
            assertCodecError(.corrupt, try ImageCodec.decode(Data(data), options: DecodeOptions(reduceTo: ImageSize(width: 8, height: 8))))
        }
    }
}
