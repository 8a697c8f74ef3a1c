/// Resizes to the largest size with the photo's aspect ratio that fits in width×height, enlarging
/// small photos too. The side that limits the scale takes the box's size; the other is
/// round(side·scale) (halves up), at least 1. Each axis shrinks by exact area averaging or grows
/// bilinearly (see `ResampleAxis`); all four channels are resampled as stored, not premultiplied.
/// Returns a new image.
public struct ResizeFilter: ReducingFilter {
    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "resize", version: "1", summary: "fit within a box, keeping the aspect ratio",
            parameters: [
                FilterParameter(key: "width", kind: .int, range: 1...20000, defaultValue: 1024, summary: "width of the box in pixels"),
                FilterParameter(key: "height", kind: .int, range: 1...20000, defaultValue: 1024, summary: "height of the box in pixels"),
            ]
        )
    }

    /// Integer arithmetic, so the size does not depend on floating-point rounding.
    public static func fittedSize(width w: Int, height h: Int, boxWidth bw: Int, boxHeight bh: Int) -> (width: Int, height: Int) {
        if bw * h <= bh * w {
            return (bw, min(bh, max(1, (2 * h * bw + w) / (2 * w))))
        }
        return (min(bw, max(1, (2 * w * bh + h) / (2 * h))), bh)
    }

    public func plan(for size: ImageSize, parameters: FilterParameters) -> ReductionPlan {
        let fitted = Self.fittedSize(width: size.width, height: size.height, boxWidth: Int(parameters["width"]), boxHeight: Int(parameters["height"]))
        return ReductionPlan(scaled: ImageSize(width: fitted.width, height: fitted.height))
    }
}

/// Resampling a whole image to a new size, axis by axis (see `ResampleAxis`).
public enum Resample {
    /// Each axis shrinks by exact area averaging or grows bilinearly; checks `isCancelled` between
    /// bands of output rows.
    public static func area(_ image: RGBAImage, to size: ImageSize, filter: String, isCancelled: () -> Bool) throws -> RGBAImage {
        guard let output = RGBAImage(width: size.width, height: size.height) else {
            throw FilterFailure(filter: filter, reason: "cannot allocate a \(size.width)x\(size.height) image")
        }
        let xs = ResampleAxis(from: image.width, to: size.width), ys = ResampleAxis(from: image.height, to: size.height)
        // One row of vertically combined input, padded for the zero-weight taps past its end.
        let sumCount = (image.width + xs.taps) * 4
        let sum = UnsafeMutablePointer<Float>.allocate(capacity: sumCount)
        defer { sum.deallocate() }

        let rowsPerCheck = RowBands.bandHeight(width: max(image.width * ys.taps, size.width * xs.taps))
        var start = 0
        while start < size.height {
            if isCancelled() { throw FilterCancelled() }
            let end = min(size.height, start + rowsPerCheck)
            for y in start..<end {
                sum.initialize(repeating: 0, count: sumCount)
                Self.combineRows(of: image, y: y, axis: ys, into: sum)
                Self.resampleRow(sum, axis: xs, into: output.pixels + y * size.width * 4, width: size.width)
            }
            start = end
        }
        return output
    }

    /// sum = Σ weight·(input row) over the input rows that output row y draws on.
    @inline(__always)
    static func combineRows(of image: RGBAImage, y: Int, axis: ResampleAxis, into sum: UnsafeMutablePointer<Float>) {
        let count = image.width * 4
        for k in 0..<axis.taps {
            let row = axis.first[y] + k, w = axis.weights[y * axis.taps + k]
            guard w != 0, row < image.height else { continue }
            let source = image.pixels + row * count
            for i in 0..<count { sum[i] += w * Float(source[i]) }
        }
    }

    @inline(__always)
    static func resampleRow(_ sum: UnsafePointer<Float>, axis: ResampleAxis, into row: UnsafeMutablePointer<UInt8>, width: Int) {
        let taps = axis.taps
        for x in 0..<width {
            let base = sum + axis.first[x] * 4, weights = axis.weights + x * taps
            var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
            for k in 0..<taps {
                let w = weights[k], p = base + k * 4
                r += w * p[0]
                g += w * p[1]
                b += w * p[2]
                a += w * p[3]
            }
            let q = row + x * 4
            q[0] = UInt8(min(r + 0.5, 255))
            q[1] = UInt8(min(g + 0.5, 255))
            q[2] = UInt8(min(b + 0.5, 255))
            q[3] = UInt8(min(a + 0.5, 255))
        }
    }
}
