import XCTest

@testable import PhotoClusterCore

final class BrightnessFilterTests: XCTestCase {
    func testMatchesTheDefinitionOnRandomImages() throws {
        for (brightness, contrast) in [(0.0, 1.0), (0.2, 1.5), (-0.5, 0.3), (1.0, 4.0), (-1.0, 0.0), (0.05, 2.7)] {
            let original = FilterTesting.randomImage(width: 37, height: 23, seed: 12)
            let output = try FilterTesting.run("brightness:brightness=\(brightness),contrast=\(contrast)", on: original.copy()!)
            let worst = FilterTesting.worstDifference(output) { x, y in
                (0..<3).map { c in
                    FilterTesting.clampRound((FilterTesting.channel(original, x, y, c) - 127.5) * contrast + 127.5 + brightness * 255)
                } + [FilterTesting.channel(original, x, y, 3)]
            }
            // The filter's table is computed in Double from the same formula, so it is exact.
            XCTAssertEqual(worst, 0, "brightness \(brightness), contrast \(contrast)")
        }
    }

    func testKnownPixels() throws {
        let image = FilterTesting.image(width: 3, height: 1, [[100, 200, 0, 50], [127, 128, 255, 255], [1, 2, 3, 4]])
        _ = try FilterTesting.run("brightness:brightness=0.1,contrast=2", on: image)
        // (100 − 127.5)·2 + 127.5 + 25.5 = 98; 200 → 298 → 255; 0 → −102 → 0.
        XCTAssertEqual(FilterTesting.pixel(image, 0, 0), [98, 255, 0, 50])
        // 127 → 152; 128 → 154; 255 → 255.
        XCTAssertEqual(FilterTesting.pixel(image, 1, 0), [152, 154, 255, 255])

        let flat = FilterTesting.image(width: 1, height: 1, [[0, 90, 255, 3]])
        _ = try FilterTesting.run("brightness:contrast=0", on: flat)
        XCTAssertEqual(FilterTesting.pixel(flat, 0, 0), [128, 128, 128, 3], "127.5 rounds away from zero")
    }
}
