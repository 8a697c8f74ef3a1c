import XCTest

@testable import PhotoClusterCore

final class RotateFilterTests: XCTestCase {
    private func rotated(_ degrees: Int, _ image: RGBAImage) throws -> RGBAImage {
        try FilterTesting.run("rotate:degrees=\(degrees)", on: image)
    }

    func testPixelMappingOnAnOddImage() throws {
        let original = FilterTesting.randomImage(width: 37, height: 23, seed: 81)
        let quarter = try rotated(90, original.copy()!)
        XCTAssertEqual([quarter.width, quarter.height], [23, 37])
        XCTAssertEqual(FilterTesting.worstDifference(quarter) { x, y in (0..<4).map { FilterTesting.channel(original, y, 22 - x, $0) } }, 0)

        let threeQuarters = try rotated(270, original.copy()!)
        XCTAssertEqual([threeQuarters.width, threeQuarters.height], [23, 37])
        XCTAssertEqual(FilterTesting.worstDifference(threeQuarters) { x, y in (0..<4).map { FilterTesting.channel(original, 36 - y, x, $0) } }, 0)

        let half = try rotated(180, original.copy()!)
        XCTAssertEqual([half.width, half.height], [37, 23])
        XCTAssertEqual(FilterTesting.worstDifference(half) { x, y in (0..<4).map { FilterTesting.channel(original, 36 - x, 22 - y, $0) } }, 0)

        let none = try rotated(0, original.copy()!)
        XCTAssertEqual(FilterTesting.worstDifference(none) { x, y in (0..<4).map { FilterTesting.channel(original, x, y, $0) } }, 0)
    }

    func testSmallHandExample() throws {
        // a b        e c a        b d f
        // c d  90 →  f d b  270 → a c e
        // e f
        let letters: [[UInt8]] = (0..<6).map { [UInt8($0), 0, 0, UInt8(100 + $0)] }
        let (a, b, c, d, e, f) = (letters[0], letters[1], letters[2], letters[3], letters[4], letters[5])
        let cw = try rotated(90, FilterTesting.image(width: 2, height: 3, letters))
        XCTAssertEqual((0..<2).flatMap { y in (0..<3).map { FilterTesting.pixel(cw, $0, y) } }, [e, c, a, f, d, b])
        let ccw = try rotated(270, FilterTesting.image(width: 2, height: 3, letters))
        XCTAssertEqual((0..<2).flatMap { y in (0..<3).map { FilterTesting.pixel(ccw, $0, y) } }, [b, d, f, a, c, e])
        let half = try rotated(180, FilterTesting.image(width: 2, height: 3, letters))
        XCTAssertEqual((0..<3).flatMap { y in (0..<2).map { FilterTesting.pixel(half, $0, y) } }, [f, e, d, c, b, a])
    }

    func testFourQuarterTurnsAndSinglePixel() throws {
        let original = FilterTesting.randomImage(width: 36, height: 23, seed: 82)
        var image = original.copy()!
        for _ in 0..<4 { image = try rotated(90, image) }
        XCTAssertEqual(FilterTesting.worstDifference(image) { x, y in (0..<4).map { FilterTesting.channel(original, x, y, $0) } }, 0)

        for degrees in [0, 90, 180, 270] {
            let single = try rotated(degrees, FilterTesting.image(width: 1, height: 1, [[1, 2, 3, 4]]))
            XCTAssertEqual(FilterTesting.pixel(single, 0, 0), [1, 2, 3, 4])
        }
    }

    func testOtherAnglesAreRefused() {
        let image = FilterTesting.randomImage(width: 3, height: 3)
        for degrees in [45, 1, 269] {
            XCTAssertThrowsError(try rotated(degrees, image)) { error in
                guard let failure = error as? FilterFailure else { return XCTFail("\(error)") }
                XCTAssertEqual(failure.reason, "degrees=\(degrees) is not one of 0, 90, 180, 270")
            }
        }
    }
}
