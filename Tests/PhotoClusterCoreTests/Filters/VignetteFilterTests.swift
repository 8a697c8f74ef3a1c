import XCTest

@testable import PhotoClusterCore

final class VignetteFilterTests: XCTestCase {
    /// f = 1 − strength·S(t), t = clamp((d − radius)/0.5, 0, 1), S(t) = t²(3 − 2t), d from the pixel centre.
    private func factor(x: Int, y: Int, width: Int, height: Int, strength: Double, radius: Double) -> Double {
        let cx = Double(width) / 2, cy = Double(height) / 2
        let d = ((Double(x) + 0.5 - cx) * (Double(x) + 0.5 - cx) + (Double(y) + 0.5 - cy) * (Double(y) + 0.5 - cy)).squareRoot()
            / (cx * cx + cy * cy).squareRoot()
        let t = min(max((d - radius) / 0.5, 0), 1)
        return 1 - strength * t * t * (3 - 2 * t)
    }

    func testMatchesTheDefinitionOnRandomImages() throws {
        for (strength, radius) in [(0.5, 0.75), (1.0, 0.1), (0.3, 1.2), (0.8, 0.4)] {
            let original = FilterTesting.randomImage(width: 37, height: 23, seed: 41)
            let output = try FilterTesting.run("vignette:strength=\(strength),radius=\(radius)", on: original.copy()!)
            let worst = FilterTesting.worstDifference(output) { x, y in
                let f = self.factor(x: x, y: y, width: 37, height: 23, strength: strength, radius: radius)
                return (0..<3).map { FilterTesting.round(FilterTesting.channel(original, x, y, $0) * f) } + [FilterTesting.channel(original, x, y, 3)]
            }
            XCTAssertLessThanOrEqual(worst, 1, "strength \(strength), radius \(radius)")
        }
    }

    func testKnownPixels() throws {
        // 2×2: every pixel centre is at d = √0.5/√2 = 0.5. radius 0.1: t = 0.8, S = 0.64·1.4 = 0.896,
        // f = 0.104, and 200·0.104 = 20.8.
        let image = FilterTesting.image(width: 2, height: 2, Array(repeating: [200, 100, 0, 99], count: 4))
        _ = try FilterTesting.run("vignette:strength=1,radius=0.1", on: image)
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            XCTAssertEqual(FilterTesting.pixel(image, x, y), [21, 10, 0, 99])
        }

        // The centre pixel of an odd image is at d = 0; nothing reaches radius 1.5.
        let odd = FilterTesting.image(width: 3, height: 3, Array(repeating: [200, 100, 50, 7], count: 9))
        _ = try FilterTesting.run("vignette:strength=1,radius=0.1", on: odd)
        XCTAssertEqual(FilterTesting.pixel(odd, 1, 1), [200, 100, 50, 7])
        let original = FilterTesting.randomImage(width: 37, height: 23, seed: 42)
        let untouched = try FilterTesting.run("vignette:strength=1,radius=1.5", on: original.copy()!)
        XCTAssertEqual(FilterTesting.worstDifference(untouched) { x, y in (0..<4).map { FilterTesting.channel(original, x, y, $0) } }, 0)
    }
}
