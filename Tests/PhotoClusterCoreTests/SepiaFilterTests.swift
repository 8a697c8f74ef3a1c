import Foundation
import XCTest

@testable import PhotoClusterCore

final class SepiaFilterTests: XCTestCase {
    /// The definition, computed independently in Double: s = min(M·rgb, 255), out = round((1−i)·in + i·s).
    private func reference(_ r: Double, _ g: Double, _ b: Double, intensity i: Double) -> [UInt8] {
        let m = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]
        return (0..<3).map { row in
            let s = min(255, m[row][0] * r + m[row][1] * g + m[row][2] * b)
            let input = [r, g, b][row]
            return UInt8(((1 - i) * input + i * s).rounded(.toNearestOrAwayFromZero))
        }
    }

    private func randomImage(width: Int, height: Int) -> RGBAImage {
        let image = RGBAImage(width: width, height: height)!
        var generator = SystemRandomNumberGenerator()
        for i in 0..<image.byteCount { image.pixels[i] = UInt8.random(in: 0...255, using: &generator) }
        return image
    }

    func testMatchesTheDefinitionAtSeveralIntensities() throws {
        let registry = FilterRegistry.builtIn
        for intensity in [0.0, 0.25, 0.8, 1.0] {
            let image = randomImage(width: 97, height: 61)
            let original = image.copy()!
            let filter = try registry.resolve("sepia:intensity=\(intensity)")
            let output = try filter.stage.apply(to: image, parameters: filter.parameters) { false }
            var worst = 0
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let p = original[x, y]
                    let expected = reference(Double(p.r), Double(p.g), Double(p.b), intensity: intensity)
                    let got = output[x, y]
                    worst = max(worst, abs(Int(got.r) - Int(expected[0])), abs(Int(got.g) - Int(expected[1])), abs(Int(got.b) - Int(expected[2])))
                    XCTAssertEqual(got.a, p.a, "alpha must not change")
                }
            }
            // Float against Double can differ by one at an exact .5 boundary, never more.
            XCTAssertLessThanOrEqual(worst, 1, "intensity \(intensity)")
        }
    }

    func testKnownPixels() throws {
        let image = RGBAImage(width: 3, height: 1)!
        let inputs: [(UInt8, UInt8, UInt8, UInt8)] = [(255, 255, 255, 255), (0, 0, 0, 7), (100, 150, 200, 128)]
        for (i, p) in inputs.enumerated() {
            (image.pixels[i * 4], image.pixels[i * 4 + 1], image.pixels[i * 4 + 2], image.pixels[i * 4 + 3]) = p
        }
        let filter = try FilterRegistry.builtIn.resolve("sepia")
        _ = try filter.stage.apply(to: image, parameters: filter.parameters) { false }
        // White saturates to 255 on every channel except blue: 0.2·255 + 0.8·(0.937·255) = 242.1.
        XCTAssertTrue(image[0, 0] == (255, 255, 242, 255))
        XCTAssertTrue(image[1, 0] == (0, 0, 0, 7))
        // (100,150,200): s = (192.45, 171.4, 133.5); out = 0.2·in + 0.8·s = (173.96, 167.12, 146.8).
        XCTAssertTrue(image[2, 0] == (174, 167, 147, 128), "\(image[2, 0])")
    }

    func testCancellationStopsBetweenBands() throws {
        let image = RGBAImage(width: 1000, height: 1000)!
        let filter = try FilterRegistry.builtIn.resolve("sepia")
        var checks = 0
        XCTAssertThrowsError(try filter.stage.apply(to: image, parameters: filter.parameters) {
            checks += 1
            return checks > 2
        }) { error in
            XCTAssertTrue(error is FilterCancelled)
        }
        XCTAssertEqual(checks, 3)
    }
}
