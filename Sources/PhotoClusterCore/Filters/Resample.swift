/// Resampling a whole image to a new size, axis by axis (see `ResampleAxis`): each output row is
/// first combined vertically from the input rows it draws on into one float row, then resampled
/// across. All four channels are resampled as stored, not premultiplied.
public enum Resample {
    /// Exact area averaging on each axis that shrinks (the box step of a large reduction, and the
    /// decoders' reduction), linear interpolation on one that grows.
    public static func area(_ image: RGBAImage, to size: ImageSize, filter: String, isCancelled: () -> Bool) throws -> RGBAImage {
        func axis(_ input: Int, _ output: Int) -> ResampleAxis {
            output <= input ? ResampleAxis(boxFrom: input, to: output) : ResampleAxis(from: input, to: output, kernel: .linear)
        }
        return try run(
            image, to: size, xs: axis(image.width, size.width), ys: axis(image.height, size.height), linearLight: false, filter: filter,
            isCancelled: isCancelled)
    }

    /// A convolution with `kernel` on both axes, shrinking or enlarging. In linear light the
    /// colour channels are turned into linear light before they are weighed and back into sRGB
    /// after, so fine detail keeps its brightness (alpha stays as it is).
    public static func kernel(
        _ image: RGBAImage, to size: ImageSize, kernel: ResampleKernel, linearLight: Bool, filter: String, isCancelled: () -> Bool
    ) throws -> RGBAImage {
        try run(
            image, to: size, xs: ResampleAxis.shared(from: image.width, to: size.width, kernel: kernel),
            ys: ResampleAxis.shared(from: image.height, to: size.height, kernel: kernel), linearLight: linearLight, filter: filter,
            isCancelled: isCancelled)
    }

    /// Checks `isCancelled` between bands of output rows.
    static func run(
        _ image: RGBAImage, to size: ImageSize, xs: ResampleAxis, ys: ResampleAxis, linearLight: Bool, filter: String,
        isCancelled: () -> Bool
    ) throws -> RGBAImage {
        guard let output = RGBAImage(width: size.width, height: size.height) else {
            throw FilterFailure(filter: filter, reason: "cannot allocate a \(size.width)x\(size.height) image")
        }
        // One row of vertically combined input, padded (with zeros) for the zero-weight taps past its end.
        let sumCount = (image.width + xs.taps) * 4
        let sum = UnsafeMutablePointer<Float>.allocate(capacity: sumCount)
        sum.initialize(repeating: 0, count: sumCount)
        // The input rows and weights of one output row's nonzero taps.
        let tapRows = UnsafeMutablePointer<UnsafePointer<UInt8>>.allocate(capacity: ys.taps)
        let tapWeights = UnsafeMutablePointer<Float>.allocate(capacity: ys.taps)
        defer {
            sum.deallocate()
            tapRows.deallocate()
            tapWeights.deallocate()
        }
        let toLinear = linearLight ? LinearLight.decodeTable : nil
        let kernels = KernelSet.current

        let rowsPerCheck = RowBands.bandHeight(width: max(image.width * ys.taps, size.width * xs.taps))
        var start = 0
        while start < size.height {
            if isCancelled() { throw FilterCancelled() }
            let end = min(size.height, start + rowsPerCheck)
            for y in start..<end {
                if let toLinear {
                    sum.update(repeating: 0, count: image.width * 4)
                    toLinear.withUnsafeBufferPointer { Self.combineLinearRows(of: image, y: y, axis: ys, table: $0.baseAddress!, into: sum) }
                } else {
                    var taps = 0
                    for k in 0..<ys.taps {
                        let row = ys.first[y] + k, w = ys.weights[y * ys.taps + k]
                        guard w != 0, row < image.height else { continue }
                        tapRows[taps] = UnsafePointer(image.pixels + row * image.width * 4)
                        tapWeights[taps] = w
                        taps += 1
                    }
                    kernels.resampleVertical(tapRows, weights: tapWeights, taps: taps, into: sum, count: image.width * 4)
                }
                let target = output.pixels + y * size.width * 4
                if linearLight {
                    LinearLight.encodeTable.withUnsafeBufferPointer {
                        Self.resampleLinearRow(sum, axis: xs, table: $0.baseAddress!, into: target, width: size.width)
                    }
                } else {
                    kernels.resampleHorizontal(sum, first: xs.first, weights: xs.weights, taps: xs.taps, into: target, width: size.width)
                }
            }
            start = end
        }
        return output
    }

    /// sum += Σ weight·(input row in linear light, through `LinearLight.decodeTable`, indexed by
    /// channel and value) over the input rows that output row y draws on. (Bytes: the vertical
    /// pass of `KernelSet.resampleVertical`.)
    @inline(__always)
    static func combineLinearRows(
        of image: RGBAImage, y: Int, axis: ResampleAxis, table: UnsafePointer<Float>, into sum: UnsafeMutablePointer<Float>
    ) {
        let count = image.width * 4
        for k in 0..<axis.taps {
            let row = axis.first[y] + k, w = axis.weights[y * axis.taps + k]
            guard w != 0, row < image.height else { continue }
            let source = image.pixels + row * count
            for i in 0..<count { sum[i] += w * table[(i & 3) << 8 | Int(source[i])] }
        }
    }

    /// Output pixel x's four channels: the axis's weights over the taps of the combined row.
    @inline(__always)
    static func weightedSum(_ sum: UnsafePointer<Float>, axis: ResampleAxis, at x: Int) -> SIMD4<Float> {
        let pixels = UnsafeRawPointer(sum)
        let base = axis.first[x], weights = axis.weights + x * axis.taps
        var acc = SIMD4<Float>(repeating: 0)
        for k in 0..<axis.taps {
            acc += weights[k] * pixels.loadUnaligned(fromByteOffset: (base + k) * 16, as: SIMD4<Float>.self)
        }
        return acc
    }

    /// One output row from a combined row of sums in linear light (the other rows go through
    /// `KernelSet.resampleHorizontal`): r, g, b back to sRGB through `LinearLight.encodeTable`.
    @inline(__always)
    static func resampleLinearRow(
        _ sum: UnsafePointer<Float>, axis: ResampleAxis, table: UnsafePointer<UInt8>, into row: UnsafeMutablePointer<UInt8>, width: Int
    ) {
        let zero = SIMD4<Float>(repeating: 0), top = SIMD4<Float>(repeating: 255)
        for x in 0..<width {
            let acc = weightedSum(sum, axis: axis, at: x)
            let v = acc.clamped(lowerBound: zero, upperBound: top) * LinearLight.encodeScale + 0.5
            let q = row + x * 4
            q[0] = table[Int(v[0])]
            q[1] = table[Int(v[1])]
            q[2] = table[Int(v[2])]
            q[3] = UInt8(truncatingIfNeeded: (acc[3].clamped(to: 0...255) + BlurFilter.roundingMagic).bitPattern)
        }
    }
}

private extension Float {
    func clamped(to range: ClosedRange<Float>) -> Float { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
