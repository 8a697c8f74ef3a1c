import PhotoClusterCore
import XCTest

final class ThumbnailFilterTests: XCTestCase {
    private func plan(_ spec: String, _ width: Int, _ height: Int) throws -> ReductionPlan {
        let filter = try FilterRegistry.builtIn.resolve(spec)
        return (filter.stage as! ReducingFilter).plan(for: ImageSize(width: width, height: height), parameters: filter.parameters)
    }

    func testFitKeepsTheAspectRatioAndNeverEnlarges() throws {
        let large = try plan("thumbnail:width=512,height=512", 4000, 3000)
        XCTAssertEqual(large.scaled, ImageSize(width: 512, height: 384))
        XCTAssertNil(large.crop)
        XCTAssertEqual(large.boxed, ImageSize(width: 1334, height: 1000), "a box shrink by 3, then Lanczos-3 by 2.6")
        XCTAssertEqual(large.kernel, .lanczos3)
        XCTAssertEqual(try plan("thumbnail:width=512,height=512", 3000, 4000).output, ImageSize(width: 384, height: 512))
        XCTAssertEqual(try plan("thumbnail:width=512,height=512", 300, 200).output, ImageSize(width: 300, height: 200))
        XCTAssertEqual(try plan("thumbnail:width=100,height=512", 300, 200).output, ImageSize(width: 100, height: 67))
    }

    func testFillCoversTheBoxAndCutsItsMiddle() throws {
        let landscape = try plan("thumbnail:width=256,height=256,fill=1", 4000, 3000)
        XCTAssertEqual(landscape.scaled, ImageSize(width: 341, height: 256))
        XCTAssertEqual(landscape.crop, ReductionPlan.Crop(x: 42, y: 0, size: ImageSize(width: 256, height: 256)))
        let small = try plan("thumbnail:width=256,height=256,fill=1", 300, 100)
        XCTAssertEqual(small.scaled, ImageSize(width: 300, height: 100), "not enlarged")
        XCTAssertEqual(small.output, ImageSize(width: 256, height: 100))
    }

    func testApplyingMatchesThePlan() throws {
        let image = FilterTesting.randomImage(width: 90, height: 40)
        let filled = try FilterTesting.run("thumbnail:width=20,height=20,fill=1", on: image)
        XCTAssertEqual([filled.width, filled.height], [20, 20])
        let fitted = try FilterTesting.run("thumbnail:width=20,height=20", on: image)
        XCTAssertEqual([fitted.width, fitted.height], [20, 9])
        // Resize and thumbnail agree when shrinking to fit.
        let resized = try FilterTesting.run("resize:width=20,height=20", on: image)
        XCTAssertEqual(Array(UnsafeBufferPointer(start: resized.pixels, count: resized.byteCount)), Array(UnsafeBufferPointer(start: fitted.pixels, count: fitted.byteCount)))
    }
}
