import PhotoClusterCore
import XCTest

/// Each EXIF orientation turns stored pixels upright as the EXIF specification draws it: the
/// stored image's first row, read as the orientation says, is where the upright image shows it.
final class ImageOrientationTests: XCTestCase {
    /// A 3×2 stored image whose pixel (x, y) holds the value 10·y + x in red.
    private func stored() -> RGBAImage {
        let image = RGBAImage(width: 3, height: 2)!
        for y in 0..<2 { for x in 0..<3 { image.pixels[(y * 3 + x) * 4] = UInt8(10 * y + x) } }
        return image
    }

    private func rows(_ image: RGBAImage) -> [[Int]] {
        (0..<image.height).map { y in (0..<image.width).map { x in Int(image[x, y].r) } }
    }

    func testEachOrientationAsTheSpecificationDrawsIt() throws {
        // Stored rows [0 1 2] and [10 11 12]; the upright image for each tag.
        let expected: [ImageOrientation: [[Int]]] = [
            .up: [[0, 1, 2], [10, 11, 12]],
            .mirrored: [[2, 1, 0], [12, 11, 10]],
            .down: [[12, 11, 10], [2, 1, 0]],
            .downMirrored: [[10, 11, 12], [0, 1, 2]],
            .leftMirrored: [[0, 10], [1, 11], [2, 12]],
            .right: [[10, 0], [11, 1], [12, 2]],
            .rightMirrored: [[12, 2], [11, 1], [10, 0]],
            .left: [[2, 12], [1, 11], [0, 10]],
        ]
        for orientation in ImageOrientation.allCases {
            let upright = try XCTUnwrap(stored().upright(orientation))
            XCTAssertEqual(rows(upright), expected[orientation], "orientation \(orientation.rawValue)")
            XCTAssertEqual(orientation.uprightSize(width: 3, height: 2).width, upright.width)
        }
    }

    func testLargeImagesCrossBlockEdges() throws {
        let width = 130, height = 67
        let image = RGBAImage(width: width, height: height)!
        for i in 0..<image.pixelCount { (image.pixels + i * 4).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee = UInt32(i) } }
        let turned = try XCTUnwrap(image.upright(.right))
        XCTAssertEqual(turned.width, height)
        // Upright (x, y) is stored (y, H − 1 − x).
        for (x, y) in [(0, 0), (66, 129), (5, 64), (40, 100)] {
            let value = (turned.pixels + (y * turned.width + x) * 4).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee }
            XCTAssertEqual(Int(value), (height - 1 - x) * width + y, "(\(x), \(y))")
        }
    }

    func testOutOfRangeTagsAreUpright() {
        XCTAssertEqual(ImageOrientation(exifValue: 0), .up)
        XCTAssertEqual(ImageOrientation(exifValue: 9), .up)
        XCTAssertEqual(ImageOrientation(exifValue: 6), .right)
    }
}
