import XCTest

@testable import PhotoClusterCore

final class SharpenFilterTests: XCTestCase {
    func testMatchesTheDefinitionOnRandomImages() throws {
        for (amount, sigma) in [(1.0, 1.0), (2.5, 0.6), (5.0, 3.0), (0.3, 2.2)] {
            let original = FilterTesting.randomImage(width: 37, height: 23, seed: 31)
            let blurred = FilterTesting.referenceBlur(original, sigma: sigma)
            let output = try FilterTesting.run("sharpen:amount=\(amount),sigma=\(sigma)", on: original.copy()!)
            let worst = FilterTesting.worstDifference(output) { x, y in
                (0..<3).map { c in
                    let value = FilterTesting.channel(original, x, y, c)
                    return FilterTesting.clampRound(value + amount * (value - blurred[(y * 37 + x) * 4 + c]))
                } + [FilterTesting.channel(original, x, y, 3)]
            }
            XCTAssertLessThanOrEqual(worst, 1, "amount \(amount), sigma \(sigma)")
        }
    }

    func testKnownPixels() throws {
        // σ = 1 (sum of the taps 2.50595): the blurred centre is 100 + 100/2.50595 = 139.90 and the
        // edges 100 + 100·e^−½/2.50595 = 124.20. amount 0.5: 200 + 0.5·60.10 = 230.05 and
        // 100 − 0.5·24.20 = 87.90.
        let image = FilterTesting.image(width: 3, height: 1, [[100, 100, 100, 0], [200, 200, 200, 128], [100, 100, 100, 255]])
        _ = try FilterTesting.run("sharpen:amount=0.5,sigma=1", on: image)
        XCTAssertEqual(FilterTesting.pixel(image, 0, 0), [88, 88, 88, 0])
        XCTAssertEqual(FilterTesting.pixel(image, 1, 0), [230, 230, 230, 128])
        XCTAssertEqual(FilterTesting.pixel(image, 2, 0), [88, 88, 88, 255])
    }

    func testZeroAmountAndSinglePixelAreUnchanged() throws {
        let original = FilterTesting.randomImage(width: 9, height: 5, seed: 32)
        let output = try FilterTesting.run("sharpen:amount=0", on: original.copy()!)
        XCTAssertEqual(FilterTesting.worstDifference(output) { x, y in (0..<4).map { FilterTesting.channel(original, x, y, $0) } }, 0)

        let single = FilterTesting.image(width: 1, height: 1, [[10, 20, 30, 40]])
        _ = try FilterTesting.run("sharpen:amount=5,sigma=20", on: single)
        XCTAssertEqual(FilterTesting.pixel(single, 0, 0), [10, 20, 30, 40])
    }
}
