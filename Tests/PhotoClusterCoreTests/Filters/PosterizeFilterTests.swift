import XCTest

@testable import PhotoClusterCore

final class PosterizeFilterTests: XCTestCase {
    private func expected(_ value: Double, levels: Int) -> Double {
        let steps = Double(levels - 1)
        return FilterTesting.round(FilterTesting.round(value * steps / 255) * 255 / steps)
    }

    func testEveryByteValueAtSeveralLevels() throws {
        for levels in [2, 3, 4, 5, 7, 16, 51, 64] {
            let original = RGBAImage(width: 256, height: 1)!
            for i in 0..<256 {
                for c in 0..<4 { original.pixels[i * 4 + c] = UInt8((i + c * 85) % 256) }
            }
            let output = try FilterTesting.run("posterize:levels=\(levels)", on: original.copy()!)
            let worst = FilterTesting.worstDifference(output) { x, y in
                (0..<3).map { self.expected(FilterTesting.channel(original, x, y, $0), levels: levels) } + [FilterTesting.channel(original, x, y, 3)]
            }
            XCTAssertEqual(worst, 0, "levels \(levels)")
        }
    }

    func testRandomOddImage() throws {
        let original = FilterTesting.randomImage(width: 37, height: 23, seed: 13)
        let output = try FilterTesting.run("posterize:levels=6", on: original.copy()!)
        let worst = FilterTesting.worstDifference(output) { x, y in
            (0..<3).map { self.expected(FilterTesting.channel(original, x, y, $0), levels: 6) } + [FilterTesting.channel(original, x, y, 3)]
        }
        XCTAssertEqual(worst, 0)
    }

    func testKnownValues() throws {
        let four = FilterTesting.image(width: 2, height: 1, [[42, 43, 128, 9], [255, 0, 170, 200]])
        _ = try FilterTesting.run("posterize", on: four)
        XCTAssertEqual(FilterTesting.pixel(four, 0, 0), [0, 85, 170, 9])
        XCTAssertEqual(FilterTesting.pixel(four, 1, 0), [255, 0, 170, 200])

        // Three levels: 0, 127.5 → 128, 255. 64·2/255 = 0.502 → 1; 191·2/255 = 1.498 → 1.
        let three = FilterTesting.image(width: 1, height: 1, [[63, 64, 191, 1]])
        _ = try FilterTesting.run("posterize:levels=3", on: three)
        XCTAssertEqual(FilterTesting.pixel(three, 0, 0), [0, 128, 128, 1])
    }
}
