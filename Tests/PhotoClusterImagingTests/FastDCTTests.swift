import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterTestSupport
import XCTest

/// The fast DCT is an option: off by default, a close but different picture when on, and ignored
/// by the encoder above quality 90.
final class FastDCTTests: XCTestCase {
    func testTheFastDCTDecodesAndEncodesAClosePicture() throws {
        let photo = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent("coffee.jpg"))
        let accurate = try ImageCodec.decode(photo).image
        let fast = try ImageCodec.decode(photo, fastDCT: true).image
        let decodeError = meanAbsoluteRGBError(accurate, fast)
        XCTAssertGreaterThan(decodeError, 0, "the fast decode gives other pixels")
        XCTAssertLessThan(decodeError, 2)
        XCTAssertEqual(try ImageCodec.decode(photo).image.byteCount, accurate.byteCount)

        let encoded = try ImageCodec.encode(accurate, as: .jpeg, quality: 85)
        let encodedFast = try ImageCodec.encode(accurate, as: .jpeg, quality: 85, fastDCT: true)
        XCTAssertNotEqual(encoded, encodedFast)
        XCTAssertLessThan(meanAbsoluteRGBError(try ImageCodec.decode(encoded).image, try ImageCodec.decode(encodedFast).image), 2)
        XCTAssertEqual(try ImageCodec.encode(accurate, as: .jpeg, quality: 95, fastDCT: true),
                       try ImageCodec.encode(accurate, as: .jpeg, quality: 95), "above quality 90 the accurate DCT is kept")
    }
}
