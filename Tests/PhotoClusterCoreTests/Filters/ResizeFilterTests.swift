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

    func testFourByFourToTwoByTwoAveragesBlocks() throws {
        let values: [[UInt8]] = [
            [10, 20, 0, 255], [30, 40, 1, 255], [0, 0, 0, 0], [255, 255, 255, 255],
            [50, 60, 2, 255], [70, 80, 2, 255], [255, 255, 255, 255], [0, 0, 0, 0],
            [1, 1, 1, 1], [2, 2, 2, 2], [9, 9, 9, 9], [9, 9, 9, 9],
            [2, 2, 2, 2], [2, 2, 2, 3], [9, 9, 9, 9], [8, 8, 8, 8],
        ]
        let output = try FilterTesting.run("resize:width=2,height=2", on: FilterTesting.image(width: 4, height: 4, values))
        XCTAssertEqual([output.width, output.height], [2, 2])
        XCTAssertEqual(FilterTesting.pixel(output, 0, 0), [40, 50, 1, 255])  // (10+30+50+70)/4 …, (0+1+2+2)/4 = 1.25
        XCTAssertEqual(FilterTesting.pixel(output, 1, 0), [128, 128, 128, 128])  // 510/4 = 127.5
        XCTAssertEqual(FilterTesting.pixel(output, 0, 1), [2, 2, 2, 2])  // 7/4 = 1.75, alpha 8/4
        XCTAssertEqual(FilterTesting.pixel(output, 1, 1), [9, 9, 9, 9])  // 35/4 = 8.75
    }

    func testShrinkMatchesCoverageWeightedMeans() throws {
        let original = FilterTesting.randomImage(width: 37, height: 23, seed: 61)
        let output = try FilterTesting.run("resize:width=11,height=7", on: original)
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

    func testEnlargeIsBilinear() throws {
        let original = FilterTesting.randomImage(width: 5, height: 3, seed: 62)
        let output = try FilterTesting.run("resize:width=12,height=7", on: original)
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
        // 10×3 in 9×9 is 9×3: columns are area averaged, rows map to themselves.
        let original = FilterTesting.randomImage(width: 10, height: 3, seed: 63)
        let output = try FilterTesting.run("resize:width=9,height=9", on: original)
        XCTAssertEqual([output.width, output.height], [9, 3])
        let sx = 10.0 / 9
        let worst = FilterTesting.worstDifference(output) { x, y in
            (0..<4).map { c in
                var sum = 0.0
                for i in 0..<10 {
                    sum += max(0, min(Double(x + 1) * sx, Double(i + 1)) - max(Double(x) * sx, Double(i))) * FilterTesting.channel(original, i, y, c)
                }
                return FilterTesting.round(sum / sx)
            }
        }
        XCTAssertLessThanOrEqual(worst, 1)
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
