import Foundation

/// Gaussian blur. Weights g(k) = exp(−k²/(2σ²)) for |k| ≤ R = ⌈3σ⌉, divided by their sum; a
/// horizontal pass then a vertical pass; a pixel outside the image takes the value of the
/// nearest edge pixel (clamp to edge); out = round(result). All four channels are blurred as
/// stored, not premultiplied by alpha, so colour under transparent pixels bleeds into its
/// neighbours; photos are nearly always opaque.
public struct BlurFilter: FilterStage {
    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "blur", version: "1", summary: "gaussian blur",
            parameters: [FilterParameter(key: "sigma", range: 0.1...50, defaultValue: 2, summary: "standard deviation in pixels; the kernel reaches 3·sigma")]
        )
    }

    public func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        let count = image.width * 4
        try Self.convolve(image, sigma: parameters["sigma"], isCancelled: isCancelled) { y, blurred in
            Self.storeRounded(blurred, into: image.pixels + y * count, count: count)
        }
        return image
    }

    /// 1.5·2²³: `roundingMagic + v` has round(v) in its low mantissa bits for 0 ≤ v < 2²² (the
    /// per-byte loops of sharpen and vignette round this way too).
    static let roundingMagic: Float = 12_582_912

    /// bytes[i] = round(floats[i]) for sums of weights that add up to one over bytes (so within
    /// 0...255 up to float error, which the clamp takes off). Rounds through the low mantissa
    /// bits of 1.5·2²³ + v, so the loop vectorises (a trapping conversion would not); halves go to
    /// even where the definition rounds them up: they differ only on an exact .5, by one.
    @inline(__always)
    static func storeRounded(_ floats: UnsafePointer<Float>, into bytes: UnsafeMutablePointer<UInt8>, count: Int) {
        let magic = roundingMagic
        for i in 0..<count {
            let v = min(max(floats[i], 0), 255) + magic
            bytes[i] = UInt8(truncatingIfNeeded: v.bitPattern)
        }
    }

    /// Blurs `image` row by row and hands each blurred row (width·4 floats, channels as stored)
    /// to `emit`, which may overwrite row `y` of the image: every source row the rest of the
    /// blur still needs lies below `y` or has already been read.
    ///
    /// The horizontal pass streams into a ring of 2R + 1 rows instead of a whole-image buffer:
    /// at 12 MP a float copy of the image would be 192 MB, while the ring stays in cache.
    static func convolve(
        _ image: RGBAImage, sigma: Double, isCancelled: () -> Bool,
        emit: (_ y: Int, _ blurred: UnsafePointer<Float>) -> Void
    ) throws {
        let width = image.width, height = image.height, count = width * 4
        let radius = Int((3 * sigma).rounded(.up)), taps = 2 * radius + 1
        let slots = min(taps, height)

        let weights = UnsafeMutablePointer<Float>.allocate(capacity: taps)
        let padded = UnsafeMutablePointer<Float>.allocate(capacity: (width + 2 * radius) * 4)
        let ring = UnsafeMutablePointer<Float>.allocate(capacity: slots * count)
        let sum = UnsafeMutablePointer<Float>.allocate(capacity: count)
        let tapRows = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: taps)
        defer {
            weights.deallocate()
            padded.deallocate()
            ring.deallocate()
            sum.deallocate()
            tapRows.deallocate()
        }
        let kernels = KernelSet.current
        Self.fillWeights(weights, radius: radius, sigma: sigma)

        // A row pass costs about `taps` multiply-adds per byte, so a band carries as much work
        // as a sepia band of RowBands.bandHeight(width: width · taps) rows.
        let rowsPerCheck = RowBands.bandHeight(width: width * taps)
        var rowsDone = 0
        var next = 0  // the next source row to pass horizontally
        for y in 0..<height {
            while next <= min(height - 1, y + radius) {
                if rowsDone % rowsPerCheck == 0, isCancelled() { throw FilterCancelled() }
                rowsDone += 1
                horizontal(image.pixels + next * count, width: width, radius: radius, weights: weights, padded: padded, into: ring + (next % slots) * count, kernels: kernels)
                next += 1
            }
            if rowsDone % rowsPerCheck == 0, isCancelled() { throw FilterCancelled() }
            rowsDone += 1
            for k in 0..<taps {
                let source = min(max(y - radius + k, 0), height - 1)
                tapRows[k] = UnsafePointer(ring + (source % slots) * count)
            }
            kernels.blurVertical(tapRows, weights: weights, taps: taps, into: sum, count: count)
            emit(y, sum)
        }
    }

    static func fillWeights(_ weights: UnsafeMutablePointer<Float>, radius: Int, sigma: Double) {
        var total = 0.0
        for k in -radius...radius { total += Self.gaussian(k, sigma) }
        for k in -radius...radius { weights[k + radius] = Float(Self.gaussian(k, sigma) / total) }
    }

    private static func gaussian(_ k: Int, _ sigma: Double) -> Double {
        exp(-Double(k * k) / (2 * sigma * sigma))
    }

    /// One row of the horizontal pass. The row is first copied as floats with R edge pixels
    /// repeated on each side, so the tap loops need no index clamping.
    @inline(__always)
    static func horizontal(
        _ source: UnsafePointer<UInt8>, width: Int, radius: Int, weights: UnsafePointer<Float>,
        padded: UnsafeMutablePointer<Float>, into row: UnsafeMutablePointer<Float>, kernels: KernelSet
    ) {
        let count = width * 4
        for k in 0..<radius {
            for c in 0..<4 {
                padded[k * 4 + c] = Float(source[c])
                padded[(radius + width + k) * 4 + c] = Float(source[count - 4 + c])
            }
        }
        let middle = padded + radius * 4
        for i in 0..<count { middle[i] = Float(source[i]) }
        kernels.blurHorizontal(padded, weights: weights, taps: 2 * radius + 1, into: row, count: count)
    }
}
