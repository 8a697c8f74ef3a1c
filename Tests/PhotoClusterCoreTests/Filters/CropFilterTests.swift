import XCTest

@testable import PhotoClusterCore

final class CropFilterTests: XCTestCase {
    func testCopiesTheRectangle() throws {
        let original = FilterTesting.randomImage(width: 37, height: 23, seed: 71)
        let output = try FilterTesting.run("crop:x=5,y=3,width=11,height=7", on: original)
        XCTAssertEqual([output.width, output.height], [11, 7])
        XCTAssertEqual(FilterTesting.worstDifference(output) { x, y in (0..<4).map { FilterTesting.channel(original, x + 5, y + 3, $0) } }, 0)
    }

    func testRectanglePastTheEdgesIsClipped() throws {
        let original = FilterTesting.randomImage(width: 37, height: 23, seed: 72)
        let output = try FilterTesting.run("crop:x=30,y=20,width=100,height=100", on: original)
        XCTAssertEqual([output.width, output.height], [7, 3])
        XCTAssertEqual(FilterTesting.worstDifference(output) { x, y in (0..<4).map { FilterTesting.channel(original, x + 30, y + 20, $0) } }, 0)

        let whole = try FilterTesting.run("crop", on: original)
        XCTAssertEqual([whole.width, whole.height], [37, 23])
        XCTAssertFalse(whole === original, "a new image")
        XCTAssertEqual(FilterTesting.worstDifference(whole) { x, y in (0..<4).map { FilterTesting.channel(original, x, y, $0) } }, 0)

        let corner = try FilterTesting.run("crop:x=36,y=22,width=1,height=1", on: original)
        XCTAssertEqual([corner.width, corner.height], [1, 1])
        XCTAssertEqual(FilterTesting.pixel(corner, 0, 0), FilterTesting.pixel(original, 36, 22))
    }

    func testRectangleStartingOutsideIsRefused() {
        let original = FilterTesting.randomImage(width: 37, height: 23)
        for spec in ["crop:x=37", "crop:y=23", "crop:x=500,y=500,width=2,height=2"] {
            XCTAssertThrowsError(try FilterTesting.run(spec, on: original), spec) { error in
                guard let failure = error as? FilterFailure else { return XCTFail("\(error)") }
                XCTAssertEqual(failure.filter, "crop")
                XCTAssertTrue(failure.reason.contains("outside the 37x23 image"), failure.reason)
            }
        }
    }
}
