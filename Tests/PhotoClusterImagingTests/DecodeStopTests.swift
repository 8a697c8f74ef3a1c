import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import XCTest

/// A JPEG decode can be stopped between scans and bands of rows (the worker's cancellation and
/// time limit); a PNG decode runs to its end.
final class DecodeStopTests: XCTestCase {
    func testAJPEGDecodeStopsWhenAsked() throws {
        // A baseline file of many bands, and a progressive one of several scans.
        let rows = RGBAImage(width: 64, height: 400)!
        for index in 0..<rows.byteCount { rows.pixels[index] = UInt8(truncatingIfNeeded: index * 7) }
        let baseline = try ImageCodec.encode(rows, as: .jpeg, quality: 90)
        for (name, data) in [("baseline", baseline), ("progressive", try fixture("progressive.jpg"))] {
            var asked = 0
            XCTAssertThrowsError(try ImageCodec.decode(data, options: DecodeOptions()) {
                asked += 1
                return asked == 2
            }, name) { error in
                XCTAssertTrue(error is DecodeStopped, "\(name): \(error)")
            }
            XCTAssertEqual(asked, 2, "\(name): asked until it said stop")
            var checks = 0
            let decoded = try ImageCodec.decode(data, options: DecodeOptions()) {
                checks += 1
                return false
            }
            XCTAssertGreaterThan(checks, 2, "\(name): asked more than once on the way")
            XCTAssertEqual(decoded.image.byteCount, try ImageCodec.decode(data, options: DecodeOptions()).image.byteCount)
        }
    }

    func testAPNGDecodeIsNotInterrupted() throws {
        let decoded = try ImageCodec.decode(try fixture("rgb8.png"), options: DecodeOptions()) { true }
        XCTAssertGreaterThan(decoded.image.pixelCount, 0)
    }
}
