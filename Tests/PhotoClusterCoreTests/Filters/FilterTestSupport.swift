import Foundation
import XCTest

@testable import PhotoClusterCore

/// Helpers shared by the filter tests. Expected values are computed here in Double from each
/// filter's definition, never through the filters' own code.
enum FilterTesting {
    static func randomImage(width: Int, height: Int, seed: UInt64 = 1) -> RGBAImage {
        let image = RGBAImage(width: width, height: height)!
        var generator = SeededRandom(seed: seed)
        for i in 0..<image.byteCount { image.pixels[i] = UInt8.random(in: 0...255, using: &generator) }
        return image
    }

    /// An image from RGBA pixels listed row by row.
    static func image(width: Int, height: Int, _ pixels: [[UInt8]]) -> RGBAImage {
        precondition(pixels.count == width * height)
        let image = RGBAImage(width: width, height: height)!
        for (i, pixel) in pixels.enumerated() {
            for c in 0..<4 { image.pixels[i * 4 + c] = pixel[c] }
        }
        return image
    }

    static func run(_ spec: String, on image: RGBAImage, isCancelled: () -> Bool = { false }) throws -> RGBAImage {
        let filter = try FilterRegistry.builtIn.resolve(spec)
        return try filter.stage.apply(to: image, parameters: filter.parameters, isCancelled: isCancelled)
    }

    static func channel(_ image: RGBAImage, _ x: Int, _ y: Int, _ c: Int) -> Double {
        Double(image.pixels[(y * image.width + x) * 4 + c])
    }

    static func pixel(_ image: RGBAImage, _ x: Int, _ y: Int) -> [UInt8] {
        (0..<4).map { image.pixels[(y * image.width + x) * 4 + $0] }
    }

    static func round(_ value: Double) -> Double { value.rounded(.toNearestOrAwayFromZero) }

    static func clampRound(_ value: Double) -> Double { round(min(max(value, 0), 255)) }

    /// The largest |output − expected| over every pixel and channel; `expected` gives the four
    /// channels of pixel (x, y).
    static func worstDifference(_ output: RGBAImage, _ expected: (Int, Int) -> [Double]) -> Double {
        var worst = 0.0
        for y in 0..<output.height {
            for x in 0..<output.width {
                let want = expected(x, y)
                for c in 0..<4 { worst = max(worst, abs(channel(output, x, y, c) - want[c])) }
            }
        }
        return worst
    }

    /// A direct 2D gaussian convolution with clamp to edge, unrounded: [(y·width + x)·4 + c].
    static func referenceBlur(_ image: RGBAImage, sigma: Double) -> [Double] {
        let radius = Int((3 * sigma).rounded(.up))
        let g = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = g.reduce(0, +)
        var out = [Double](repeating: 0, count: image.byteCount)
        for y in 0..<image.height {
            for x in 0..<image.width {
                for dy in -radius...radius {
                    let sy = min(max(y + dy, 0), image.height - 1)
                    for dx in -radius...radius {
                        let sx = min(max(x + dx, 0), image.width - 1)
                        let w = g[dx + radius] * g[dy + radius] / (total * total)
                        for c in 0..<4 { out[(y * image.width + x) * 4 + c] += w * channel(image, sx, sy, c) }
                    }
                }
            }
        }
        return out
    }
}
