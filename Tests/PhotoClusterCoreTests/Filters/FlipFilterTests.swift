import XCTest

@testable import PhotoClusterCore

final class FlipFilterTests: XCTestCase {
    func testHorizontalAndVerticalMapping() throws {
        for (width, height) in [(37, 23), (36, 22), (1, 1), (2, 1), (1, 3)] {
            let original = FilterTesting.randomImage(width: width, height: height, seed: 91)
            let mirrored = try FilterTesting.run("flip", on: original.copy()!)
            XCTAssertEqual(
                FilterTesting.worstDifference(mirrored) { x, y in (0..<4).map { FilterTesting.channel(original, width - 1 - x, y, $0) } }, 0,
                "\(width)x\(height)")
            let flipped = try FilterTesting.run("flip:vertical=true", on: original.copy()!)
            XCTAssertEqual(
                FilterTesting.worstDifference(flipped) { x, y in (0..<4).map { FilterTesting.channel(original, x, height - 1 - y, $0) } }, 0,
                "\(width)x\(height)")
        }
    }

    func testSmallHandExample() throws {
        let pixels: [[UInt8]] = (0..<6).map { [UInt8($0), 9, 9, UInt8(200 + $0)] }
        let mirrored = try FilterTesting.run("flip:vertical=0", on: FilterTesting.image(width: 3, height: 2, pixels))
        XCTAssertEqual((0..<2).flatMap { y in (0..<3).map { FilterTesting.pixel(mirrored, $0, y)[0] } }, [2, 1, 0, 5, 4, 3])
        let flipped = try FilterTesting.run("flip:vertical=1", on: FilterTesting.image(width: 3, height: 2, pixels))
        XCTAssertEqual((0..<2).flatMap { y in (0..<3).map { FilterTesting.pixel(flipped, $0, y)[0] } }, [3, 4, 5, 0, 1, 2])
        XCTAssertEqual(FilterTesting.pixel(flipped, 0, 0)[3], 203, "alpha moves with its pixel")
    }
}
