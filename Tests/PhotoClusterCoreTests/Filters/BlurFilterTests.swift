import Foundation
import XCTest

@testable import PhotoClusterCore

final class BlurFilterTests: XCTestCase {
    private func assertMatchesDirectConvolution(width: Int, height: Int, sigma: Double, seed: UInt64, file: StaticString = #filePath, line: UInt = #line) throws {
        let original = FilterTesting.randomImage(width: width, height: height, seed: seed)
        let reference = FilterTesting.referenceBlur(original, sigma: sigma)
        let output = try FilterTesting.run("blur:sigma=\(sigma)", on: original.copy()!)
        let worst = FilterTesting.worstDifference(output) { x, y in
            (0..<4).map { FilterTesting.round(reference[(y * width + x) * 4 + $0]) }
        }
        XCTAssertLessThanOrEqual(worst, 1, "\(width)x\(height) sigma \(sigma)", file: file, line: line)
    }

    func testMatchesADirect2DConvolutionOnRandomImages() throws {
        try assertMatchesDirectConvolution(width: 37, height: 23, sigma: 0.7, seed: 21)
        try assertMatchesDirectConvolution(width: 37, height: 23, sigma: 2, seed: 22)
        try assertMatchesDirectConvolution(width: 37, height: 23, sigma: 4.5, seed: 23)
    }

    func testKernelWiderThanTheImage() throws {
        try assertMatchesDirectConvolution(width: 1, height: 9, sigma: 3, seed: 24)
        try assertMatchesDirectConvolution(width: 9, height: 1, sigma: 3, seed: 25)
        try assertMatchesDirectConvolution(width: 5, height: 3, sigma: 20, seed: 26)
    }

    func testKnownPixels() throws {
        // σ = 1: R = 3, g = 1, e^−½, e^−2, e^−9/2, sum 2.50595. One row, so only the horizontal pass
        // matters. Centre: 255/2.50595 = 101.76. Edges: 255·e^−½/2.50595 = 61.72 (the clamped
        // taps repeat the black edge pixel).
        let image = FilterTesting.image(width: 3, height: 1, [[0, 0, 0, 255], [255, 255, 255, 255], [0, 0, 0, 255]])
        _ = try FilterTesting.run("blur:sigma=1", on: image)
        XCTAssertEqual(FilterTesting.pixel(image, 0, 0), [62, 62, 62, 255])
        XCTAssertEqual(FilterTesting.pixel(image, 1, 0), [102, 102, 102, 255])
        XCTAssertEqual(FilterTesting.pixel(image, 2, 0), [62, 62, 62, 255])
    }

    func testUniformAndSinglePixelImagesAreUnchanged() throws {
        let single = FilterTesting.image(width: 1, height: 1, [[10, 20, 30, 40]])
        _ = try FilterTesting.run("blur:sigma=50", on: single)
        XCTAssertEqual(FilterTesting.pixel(single, 0, 0), [10, 20, 30, 40])

        let uniform = RGBAImage(width: 13, height: 7)!
        for i in 0..<uniform.byteCount { uniform.pixels[i] = [200, 100, 7, 255][i % 4] }
        _ = try FilterTesting.run("blur:sigma=3.3", on: uniform)
        XCTAssertEqual(FilterTesting.worstDifference(uniform) { _, _ in [200, 100, 7, 255] }, 0)
    }

    func testCancellingA12MegapixelBlurReturnsQuickly() throws {
        let image = RGBAImage(width: 4000, height: 3000)!
        let filter = try FilterRegistry.builtIn.resolve("blur:sigma=2")
        var checks = 0
        let start = Date()
        XCTAssertThrowsError(try filter.stage.apply(to: image, parameters: filter.parameters) {
            checks += 1
            return checks > 1
        }) { error in
            XCTAssertTrue(error is FilterCancelled, "\(error)")
        }
        let milliseconds = Date().timeIntervalSince(start) * 1000
        print("blur:sigma=2 on 4000x3000 returned \(String(format: "%.1f", milliseconds)) ms after starting, cancelled at the second check")
        XCTAssertEqual(checks, 2)
        XCTAssertLessThan(milliseconds, 2000)
    }
}
