/// The weighted sums of the gaussian blur, built twice like `SepiaKernel` (see there and
/// `KernelSet`).
///
/// Each output float is Σₖ w[k]·sourceₖ[i], summed in tap order exactly as a plain loop would,
/// so both builds and the definition's order agree bit for bit. The loops work on 32 outputs
/// at a time held in four vector accumulators across all taps: a tap then costs one load per
/// eight floats, where a pass of `sum[i] += w·source[i]` over a whole row per tap also loads
/// and stores the sum from the L2 cache.
public enum BlurKernel {
    /// row[i] = Σₖ w[k]·padded[i + 4k] for i in 0..<count: the horizontal pass over a row of RGBA
    /// floats that carries `taps − 1` pixels of padding.
    @inline(never)  // never inlined into a module built for another CPU (see KernelSet)
    public static func horizontal(_ padded: UnsafePointer<Float>, weights: UnsafePointer<Float>, taps: Int, into row: UnsafeMutablePointer<Float>, count: Int) {
        taps.withTapSources(stride: 4, from: padded) { sources in
            weightedSum(sources, weights: weights, taps: taps, into: row, count: count)
        }
    }

    /// sum[i] = Σₖ w[k]·rows[k][i] for i in 0..<count: the vertical pass over `taps` rows.
    @inline(never)  // never inlined into a module built for another CPU (see KernelSet)
    public static func vertical(_ rows: UnsafePointer<UnsafePointer<Float>>, weights: UnsafePointer<Float>, taps: Int, into sum: UnsafeMutablePointer<Float>, count: Int) {
        weightedSum(rows, weights: weights, taps: taps, into: sum, count: count)
    }

    @inline(__always)
    private static func weightedSum(_ sources: UnsafePointer<UnsafePointer<Float>>, weights: UnsafePointer<Float>, taps: Int, into output: UnsafeMutablePointer<Float>, count: Int) {
        typealias Lane = SIMD8<Float>
        func load(_ pointer: UnsafePointer<Float>) -> Lane { UnsafeRawPointer(pointer).loadUnaligned(as: Lane.self) }
        var i = 0
        while i + 32 <= count {
            var a0 = Lane(), a1 = Lane(), a2 = Lane(), a3 = Lane()
            for k in 0..<taps {
                let w = Lane(repeating: weights[k])
                let p = sources[k] + i
                a0 = a0 + w * load(p)
                a1 = a1 + w * load(p + 8)
                a2 = a2 + w * load(p + 16)
                a3 = a3 + w * load(p + 24)
            }
            let out = UnsafeMutableRawPointer(output + i)
            out.storeBytes(of: a0, as: Lane.self)
            (out + 32).storeBytes(of: a1, as: Lane.self)
            (out + 64).storeBytes(of: a2, as: Lane.self)
            (out + 96).storeBytes(of: a3, as: Lane.self)
            i += 32
        }
        while i < count {
            var a: Float = 0
            for k in 0..<taps { a = a + weights[k] * sources[k][i] }
            output[i] = a
            i += 1
        }
    }
}

extension Int {
    /// Calls `body` with `self` pointers `start`, `start + stride`, `start + 2·stride`, …
    @inline(__always)
    fileprivate func withTapSources<T>(stride: Int, from start: UnsafePointer<Float>, _ body: (UnsafePointer<UnsafePointer<Float>>) -> T) -> T {
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: self) { buffer in
            for k in 0..<self { buffer[k] = start + k * stride }
            return body(UnsafePointer(buffer.baseAddress!))
        }
    }
}
