import XCTest

@testable import PhotoClusterCore

final class ResizeFilterTests: XCTestCase {
    func testFittedSizes() {
        let cases: [((Int, Int), (Int, Int), (Int, Int))] = [
            ((37, 23), (11, 7), (11, 7)),  // 23·11/37 = 6.84
            ((37, 23), (20, 20), (20, 12)),  // 12.43
            ((100, 50), (1024, 1024), (1024, 512)),  // may enlarge
            ((50, 100), (1024, 1024), (512, 1024)),
            ((5, 3), (12, 7), (12, 7)),  // 5·7/3 = 11.67
            ((1000, 1), (10, 10), (10, 1)),  // never below 1
            ((40, 3), (20, 20), (20, 2)),  // 1.5 rounds up
            ((1, 1), (3, 5), (3, 3)),
        ]
        for (input, box, expected) in cases {
            let size = ResizeFilter.fittedSize(width: input.0, height: input.1, boxWidth: box.0, boxHeight: box.1)
            XCTAssertTrue(size == expected, "\(input) in \(box): \(size)")
        }
    }

    /// The box step (`Resample.area`) of large reductions averages exactly.
    func testBoxStepFourByFourToTwoByTwoAveragesBlocks() throws {
        let values: [[UInt8]] = [
            [10, 20, 0, 255], [30, 40, 1, 255], [0, 0, 0, 0], [255, 255, 255, 255],
            [50, 60, 2, 255], [70, 80, 2, 255], [255, 255, 255, 255], [0, 0, 0, 0],
            [1, 1, 1, 1], [2, 2, 2, 2], [9, 9, 9, 9], [9, 9, 9, 9],
            [2, 2, 2, 2], [2, 2, 2, 3], [9, 9, 9, 9], [8, 8, 8, 8],
        ]
        let output = try Resample.area(FilterTesting.image(width: 4, height: 4, values), to: ImageSize(width: 2, height: 2), filter: "test") { false }
        XCTAssertEqual([output.width, output.height], [2, 2])
        XCTAssertEqual(FilterTesting.pixel(output, 0, 0), [40, 50, 1, 255])  // (10+30+50+70)/4 …, (0+1+2+2)/4 = 1.25
        XCTAssertEqual(FilterTesting.pixel(output, 1, 0), [128, 128, 128, 128])  // 510/4 = 127.5
        XCTAssertEqual(FilterTesting.pixel(output, 0, 1), [2, 2, 2, 2])  // 7/4 = 1.75, alpha 8/4
        XCTAssertEqual(FilterTesting.pixel(output, 1, 1), [9, 9, 9, 9])  // 35/4 = 8.75
    }

    func testBoxStepMatchesCoverageWeightedMeans() throws {
        let original = FilterTesting.randomImage(width: 37, height: 23, seed: 61)
        let output = try Resample.area(original, to: ImageSize(width: 11, height: 7), filter: "test") { false }
        XCTAssertEqual([output.width, output.height], [11, 7])
        let sx = 37.0 / 11, sy = 23.0 / 7
        let worst = FilterTesting.worstDifference(output) { x, y in
            // The output pixel's rectangle in input coordinates, and each input pixel's overlap with it.
            let x0 = Double(x) * sx, x1 = Double(x + 1) * sx, y0 = Double(y) * sy, y1 = Double(y + 1) * sy
            var sums = [0.0, 0.0, 0.0, 0.0]
            for j in 0..<23 {
                for i in 0..<37 {
                    let area = max(0, min(x1, Double(i + 1)) - max(x0, Double(i))) * max(0, min(y1, Double(j + 1)) - max(y0, Double(j)))
                    for c in 0..<4 { sums[c] += area * FilterTesting.channel(original, i, j, c) }
                }
            }
            return sums.map { FilterTesting.round($0 / (sx * sy)) }
        }
        XCTAssertLessThanOrEqual(worst, 1)
    }

    func testEnlargeWithTheLinearKernelIsBilinear() throws {
        let original = FilterTesting.randomImage(width: 5, height: 3, seed: 62)
        let output = try FilterTesting.run("resize:width=12,height=7,kernel=linear", on: original)
        XCTAssertEqual([output.width, output.height], [12, 7])
        let worst = FilterTesting.worstDifference(output) { x, y in
            let u = min(max((Double(x) + 0.5) * 5 / 12 - 0.5, 0), 4), v = min(max((Double(y) + 0.5) * 3 / 7 - 0.5, 0), 2)
            let i0 = Int(u.rounded(.down)), j0 = Int(v.rounded(.down))
            let i1 = min(i0 + 1, 4), j1 = min(j0 + 1, 2), fx = u - Double(i0), fy = v - Double(j0)
            return (0..<4).map { c in
                let top = (1 - fx) * FilterTesting.channel(original, i0, j0, c) + fx * FilterTesting.channel(original, i1, j0, c)
                let bottom = (1 - fx) * FilterTesting.channel(original, i0, j1, c) + fx * FilterTesting.channel(original, i1, j1, c)
                return FilterTesting.round((1 - fy) * top + fy * bottom)
            }
        }
        XCTAssertLessThanOrEqual(worst, 1)
    }

    func testShrinkOneAxisKeepTheOther() throws {
        // 10×3 in 9×9 is 9×3: columns are resampled, rows map to themselves (the kernels are 0 at
        // every other whole pixel).
        let original = FilterTesting.randomImage(width: 10, height: 3, seed: 63)
        let output = try FilterTesting.run("resize:width=9,height=9", on: original)
        XCTAssertEqual([output.width, output.height], [9, 3])
        XCTAssertLessThanOrEqual(FilterTesting.worstDifference(output) { x, y in Self.kernelReference(original, 9, 3, Self.lanczos3, support: 3)(x, y) }, 1)
    }

    func testSameSizeAndSinglePixel() throws {
        let original = FilterTesting.randomImage(width: 37, height: 23, seed: 64)
        let same = try FilterTesting.run("resize:width=37,height=100", on: original)
        XCTAssertEqual([same.width, same.height], [37, 23])
        XCTAssertEqual(FilterTesting.worstDifference(same) { x, y in (0..<4).map { FilterTesting.channel(original, x, y, $0) } }, 0)

        let single = FilterTesting.image(width: 1, height: 1, [[1, 2, 3, 4]])
        let grown = try FilterTesting.run("resize:width=3,height=5", on: single)
        XCTAssertEqual([grown.width, grown.height], [3, 3])
        XCTAssertEqual(FilterTesting.worstDifference(grown) { _, _ in [1, 2, 3, 4] }, 0)
        let tiny = try FilterTesting.run("resize:width=1,height=1", on: original)
        XCTAssertEqual([tiny.width, tiny.height], [1, 1])
    }

    func testCancellation() throws {
        let image = FilterTesting.randomImage(width: 37, height: 23)
        XCTAssertThrowsError(try FilterTesting.run("resize:width=11,height=7", on: image) { true }) { error in
            XCTAssertTrue(error is FilterCancelled, "\(error)")
        }
    }
}

/// The kernels checked against a direct two-dimensional convolution written out here from their
/// definitions (Pillow's shapes and edge rule: taps outside the image dropped, the rest
/// renormalised), in doubles.
extension ResizeFilterTests {
    static func lanczos3(_ x: Double) -> Double {
        let x = abs(x)
        func sinc(_ v: Double) -> Double { v == 0 ? 1 : sin(.pi * v) / (.pi * v) }
        return x < 3 ? sinc(x) * sinc(x / 3) : 0
    }

    static func cubic(_ x: Double) -> Double {
        let x = abs(x), a = -0.5
        if x < 1 { return (a + 2) * x * x * x - (a + 3) * x * x + 1 }
        return x < 2 ? a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a : 0
    }

    static func kernelReference(
        _ image: RGBAImage, _ width: Int, _ height: Int, _ kernel: @escaping (Double) -> Double, support: Double
    ) -> (Int, Int) -> [Double] {
        func taps(_ o: Int, _ input: Int, _ output: Int) -> [(Int, Double)] {
            let scale = Double(input) / Double(output), stretch = max(scale, 1), centre = (Double(o) + 0.5) * scale
            let list = (0..<input).compactMap { i -> (Int, Double)? in
                let d = Double(i) + 0.5 - centre
                return abs(d) < support * stretch ? (i, kernel(d / stretch)) : nil
            }
            let total = list.reduce(0) { $0 + $1.1 }
            return list.map { ($0.0, $0.1 / total) }
        }
        return { x, y in
            var sums = [0.0, 0.0, 0.0, 0.0]
            for (j, wy) in taps(y, image.height, height) {
                for (i, wx) in taps(x, image.width, width) {
                    for c in 0..<4 { sums[c] += wx * wy * FilterTesting.channel(image, i, j, c) }
                }
            }
            return sums.map { FilterTesting.round(min(max($0, 0), 255)) }
        }
    }

    func testLanczosAndCubicShrinkAndEnlargeAsDefined() throws {
        let original = FilterTesting.randomImage(width: 37, height: 23, seed: 65)
        for (name, kernel, support) in [("lanczos3", Self.lanczos3, 3.0), ("cubic", Self.cubic, 2.0)] {
            for (w, h) in [(11, 7), (90, 56)] {
                let output = try FilterTesting.run("resize:width=\(w),height=\(h),kernel=\(name)", on: original)
                XCTAssertEqual([output.width, output.height], [w, h])
                let worst = FilterTesting.worstDifference(output, Self.kernelReference(original, w, h, kernel, support: support))
                XCTAssertLessThanOrEqual(worst, 1, "\(name) to \(w)x\(h)")
            }
        }
    }

    func testNearestTakesThePixelUnderTheCentre() throws {
        let original = FilterTesting.randomImage(width: 37, height: 23, seed: 66)
        let output = try FilterTesting.run("resize:width=11,height=7,kernel=nearest", on: original)
        let worst = FilterTesting.worstDifference(output) { x, y in
            (0..<4).map { FilterTesting.channel(original, Int((Double(x) + 0.5) * 37 / 11), Int((Double(y) + 0.5) * 23 / 7), $0) }
        }
        XCTAssertEqual(worst, 0)
    }

    func testKernelNamesResolveToNumbersAndUnknownOnesAreRefused() throws {
        let cubic = try FilterRegistry.builtIn.resolve("resize:width=10,height=10,kernel=cubic")
        XCTAssertEqual(cubic.parameters["kernel"], 2)
        XCTAssertEqual(cubic.spec.description, "resize:height=10,kernel=2,linear=0,sharpen=0,width=10")
        XCTAssertEqual(try FilterRegistry.builtIn.resolve("thumbnail").parameters["kernel"], 3, "lanczos3 by default")
        XCTAssertThrowsError(try FilterRegistry.builtIn.resolve("resize:kernel=mitchell")) { error in
            XCTAssertTrue("\(error)".contains("nearest, linear, cubic, lanczos3"), "\(error)")
        }
    }

    /// One-pixel black and white stripes shrunk 2×: sRGB values average to 128, the light they
    /// send is sRGB 188.
    func testLinearLightKeepsTheBrightnessOfFineStripes() throws {
        let stripes = FilterTesting.image(width: 64, height: 64, (0..<64 * 64).map { ($0 % 64) % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255] })
        let plain = try FilterTesting.run("resize:width=32,height=32,kernel=linear", on: stripes)
        let linear = try FilterTesting.run("resize:width=32,height=32,kernel=linear,linear=1", on: stripes)
        XCTAssertEqual(FilterTesting.pixel(plain, 16, 16), [128, 128, 128, 255])
        XCTAssertEqual(FilterTesting.pixel(linear, 16, 16), [188, 188, 188, 255])
    }

    /// Lanczos' negative lobes overshoot at a hard edge; the values are clamped, not wrapped.
    func testOvershootIsClamped() throws {
        let edge = FilterTesting.image(width: 40, height: 4, (0..<160).map { $0 % 40 < 20 ? [0, 0, 0, 255] : [255, 255, 255, 255] })
        let output = try FilterTesting.run("resize:width=90,height=9", on: edge)
        XCTAssertEqual(FilterTesting.pixel(output, 0, 4), [0, 0, 0, 255])
        XCTAssertEqual(FilterTesting.pixel(output, 89, 4), [255, 255, 255, 255])
    }

    func testLargeReductionsBoxFirstAndLeaveTheKernelAFactorOfTwoAndAHalf() throws {
        let plan = try FilterRegistry.builtIn.resolve("resize:width=512,height=512")
        let reducing = plan.stage as! ReducingFilter
        XCTAssertEqual(reducing.plan(for: ImageSize(width: 4032, height: 3024), parameters: plan.parameters).boxed, ImageSize(width: 1344, height: 1008))
        XCTAssertEqual(reducing.plan(for: ImageSize(width: 4032, height: 3024), parameters: plan.parameters).scaled, ImageSize(width: 512, height: 384))
        XCTAssertNil(reducing.plan(for: ImageSize(width: 2400, height: 1800), parameters: plan.parameters).boxed, "4.7×: the kernel does it all")
        XCTAssertEqual(
            reducing.plan(for: ImageSize(width: 4032, height: 3024), parameters: try FilterRegistry.builtIn.resolve("resize:width=504,height=504").parameters).boxed,
            ImageSize(width: 1344, height: 1008), "8×: a box of 3, not 4")
        let linear = try FilterRegistry.builtIn.resolve("resize:width=512,height=512,linear=1")
        XCTAssertNil((linear.stage as! ReducingFilter).plan(for: ImageSize(width: 4032, height: 3024), parameters: linear.parameters).boxed)
    }

    func testSharpenAfterAReductionLiftsEdges() throws {
        let photo = FilterTesting.randomImage(width: 120, height: 90, seed: 67)
        let soft = try FilterTesting.run("resize:width=40,height=40", on: photo)
        let sharp = try FilterTesting.run("resize:width=40,height=40,sharpen=1", on: photo)
        func contrast(_ image: RGBAImage) -> Double {
            var total = 0.0
            for y in 0..<image.height { for x in 1..<image.width { total += abs(FilterTesting.channel(image, x, y, 1) - FilterTesting.channel(image, x - 1, y, 1)) } }
            return total
        }
        XCTAssertGreaterThan(contrast(sharp), contrast(soft) * 1.1)
        // Under 2×: no sharpening.
        let mild = try FilterTesting.run("resize:width=100,height=100", on: photo)
        let mildSharp = try FilterTesting.run("resize:width=100,height=100,sharpen=1", on: photo)
        XCTAssertEqual(FilterTesting.worstDifference(mildSharp) { x, y in (0..<4).map { FilterTesting.channel(mild, x, y, $0) } }, 0)
    }

    /// An axis is made once for a size and shared by the resizes after it, with the weights of
    /// one made anew; another size, or another kernel, gets its own.
    func testAnAxisIsSharedBetweenResizesOfOneSize() {
        let first = ResampleAxis.shared(from: 1009, to: 512, kernel: .lanczos3)
        XCTAssertTrue(ResampleAxis.shared(from: 1009, to: 512, kernel: .lanczos3) === first)
        XCTAssertFalse(ResampleAxis.shared(from: 1009, to: 511, kernel: .lanczos3) === first)
        XCTAssertFalse(ResampleAxis.shared(from: 1009, to: 512, kernel: .cubic) === first)
        let fresh = ResampleAxis(from: 1009, to: 512, kernel: .lanczos3)
        XCTAssertEqual(fresh.taps, first.taps)
        XCTAssertEqual(Array(UnsafeBufferPointer(start: fresh.weights, count: 512 * fresh.taps)),
                       Array(UnsafeBufferPointer(start: first.weights, count: 512 * first.taps)))
        XCTAssertEqual(Array(UnsafeBufferPointer(start: fresh.first, count: 512)), Array(UnsafeBufferPointer(start: first.first, count: 512)))
    }
}
