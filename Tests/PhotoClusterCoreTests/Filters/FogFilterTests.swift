import XCTest

@testable import PhotoClusterCore

final class FogFilterTests: XCTestCase {
    func testMatchesTheDefinitionOnRandomImages() throws {
        for (density, band) in [(0.6, 0.25), (1.0, 0.5), (0.3, 0.1), (0.9, 0.0), (0.0, 0.4)] {
            let original = FilterTesting.randomImage(width: 37, height: 23, seed: 51)
            let output = try FilterTesting.run("fog:density=\(density),band=\(band)", on: original.copy()!)
            let worst = FilterTesting.worstDifference(output) { x, y in
                let t = Double(min(y, 23 - 1 - y)) / (band * 23)
                let w = band > 0 && t < 1 ? density * (1 - t) : 0
                return (0..<3).map { FilterTesting.round(FilterTesting.channel(original, x, y, $0) * (1 - w) + 255 * w) }
                    + [FilterTesting.channel(original, x, y, 3)]
            }
            XCTAssertLessThanOrEqual(worst, 1, "density \(density), band \(band)")
        }
    }

    func testKnownColumn() throws {
        // Height 10, band 0.25: 2.5 rows. Row 0: w = 0.6 → 100·0.4 + 153 = 193; row 1: t = 0.4,
        // w = 0.36 → 64 + 91.8 = 155.8; row 2: t = 0.8, w = 0.12 → 88 + 30.6 = 118.6; row 3: t = 1.2.
        let image = FilterTesting.image(width: 1, height: 10, Array(repeating: [100, 100, 100, 42], count: 10))
        _ = try FilterTesting.run("fog", on: image)
        let column = (0..<10).map { FilterTesting.pixel(image, 0, $0)[0] }
        XCTAssertEqual(column, [193, 156, 119, 100, 100, 100, 100, 119, 156, 193])
        XCTAssertTrue((0..<10).allSatisfy { FilterTesting.pixel(image, 0, $0)[3] == 42 })
    }

    func testSinglePixelIsAnEdgeRow() throws {
        let image = FilterTesting.image(width: 1, height: 1, [[0, 100, 255, 5]])
        _ = try FilterTesting.run("fog:density=0.5", on: image)
        // w = 0.5: 127.5 → 128, 177.5 → 178, 255.
        XCTAssertEqual(FilterTesting.pixel(image, 0, 0), [128, 178, 255, 5])
    }
}
