import XCTest

@testable import PhotoClusterCore

final class GrayscaleFilterTests: XCTestCase {
    func testMatchesTheDefinitionOnRandomImages() throws {
        for amount in [0.0, 0.3, 1.0] {
            let original = FilterTesting.randomImage(width: 37, height: 23, seed: 11)
            let output = try FilterTesting.run("grayscale:amount=\(amount)", on: original.copy()!)
            let worst = FilterTesting.worstDifference(output) { x, y in
                let p = (0..<4).map { FilterTesting.channel(original, x, y, $0) }
                let luma = 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]
                return (0..<3).map { FilterTesting.round((1 - amount) * p[$0] + amount * luma) } + [p[3]]
            }
            XCTAssertLessThanOrEqual(worst, 1, "amount \(amount)")
        }
    }

    func testKnownPixels() throws {
        let image = FilterTesting.image(width: 5, height: 1, [
            [255, 255, 255, 255], [100, 150, 200, 9], [255, 0, 0, 0], [0, 255, 0, 1], [0, 0, 255, 2],
        ])
        _ = try FilterTesting.run("grayscale", on: image)
        XCTAssertEqual(FilterTesting.pixel(image, 0, 0), [255, 255, 255, 255])
        // 21.26 + 107.28 + 14.44 = 142.98
        XCTAssertEqual(FilterTesting.pixel(image, 1, 0), [143, 143, 143, 9])
        XCTAssertEqual(FilterTesting.pixel(image, 2, 0), [54, 54, 54, 0])  // 54.213
        XCTAssertEqual(FilterTesting.pixel(image, 3, 0), [182, 182, 182, 1])  // 182.376
        XCTAssertEqual(FilterTesting.pixel(image, 4, 0), [18, 18, 18, 2])  // 18.411
    }

    func testHalfAmountOnOnePixel() throws {
        let image = FilterTesting.image(width: 1, height: 1, [[100, 150, 200, 77]])
        _ = try FilterTesting.run("grayscale:amount=0.5", on: image)
        // (in + 142.98) / 2 = 121.49, 146.49, 171.49
        XCTAssertEqual(FilterTesting.pixel(image, 0, 0), [121, 146, 171, 77])
    }
}
