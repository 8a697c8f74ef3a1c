/// The vertical pass of `resize` and `thumbnail` (see the core's `Resample`), built twice like
/// `SepiaKernel` (see there and `KernelSet`).
///
/// Each output float is Σₖ w[k]·rows[k][i] over bytes, summed in tap order. Like `BlurKernel`,
/// 32 outputs at a time stay in four vector accumulators across all taps, so a tap costs one
/// load of eight bytes per eight floats and the sum is written once, where a pass of
/// `sum[i] += w·Float(row[i])` per tap converted, loaded and stored the whole row every time.
public enum ResampleLoops {
    /// sum[i] = Σₖ w[k]·rows[k][i] for i in 0..<count.
    @inline(never)  // never inlined into a module built for another CPU (see KernelSet)
    public static func vertical(
        _ rows: UnsafePointer<UnsafePointer<UInt8>>, weights: UnsafePointer<Float>, taps: Int, into sum: UnsafeMutablePointer<Float>, count: Int
    ) {
        typealias Lane = SIMD8<Float>
        func load(_ pointer: UnsafePointer<UInt8>) -> Lane {
            Lane(SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(pointer).loadUnaligned(as: SIMD8<UInt8>.self)))
        }
        var i = 0
        while i + 32 <= count {
            var a0 = Lane(), a1 = Lane(), a2 = Lane(), a3 = Lane()
            for k in 0..<taps {
                let w = Lane(repeating: weights[k])
                let p = rows[k] + i
                a0 = a0 + w * load(p)
                a1 = a1 + w * load(p + 8)
                a2 = a2 + w * load(p + 16)
                a3 = a3 + w * load(p + 24)
            }
            let out = UnsafeMutableRawPointer(sum + i)
            out.storeBytes(of: a0, as: Lane.self)
            out.storeBytes(of: a1, toByteOffset: 32, as: Lane.self)
            out.storeBytes(of: a2, toByteOffset: 64, as: Lane.self)
            out.storeBytes(of: a3, toByteOffset: 96, as: Lane.self)
            i += 32
        }
        while i < count {
            var a: Float = 0
            for k in 0..<taps { a = a + weights[k] * Float(rows[k][i]) }
            sum[i] = a
            i += 1
        }
    }
}
