/// The two passes of `resize` and `thumbnail` (see the core's `Resample`), built twice like
/// `SepiaKernel` (see there and `KernelSet`).
///
/// The vertical pass: each output float is Σₖ w[k]·rows[k][i] over bytes, summed in tap order.
/// Like `BlurKernel`, 32 outputs at a time stay in four vector accumulators across all taps, so a
/// tap costs one load of eight bytes per eight floats and the sum is written once, where a pass
/// of `sum[i] += w·Float(row[i])` per tap converted, loaded and stored the whole row every time.
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

    /// row[x] for x in 0..<width: the four channels Σₖ weights[x·taps + k]·sum[first[x] + k], each
    /// pixel of `sum` four floats, clamped to 0...255 and rounded to bytes.
    ///
    /// Four output pixels at a time, each in an accumulator of its own: one pixel's taps form a
    /// chain of dependent additions (four cycles each), so a pixel at a time waited on that chain;
    /// four chains side by side keep the adder busy. Each pixel still sums its taps in order, so
    /// the bytes are those of a pixel at a time.
    @inline(never)  // never inlined into a module built for another CPU (see KernelSet)
    public static func horizontal(
        _ sum: UnsafePointer<Float>, first: UnsafePointer<Int>, weights: UnsafePointer<Float>, taps: Int,
        into row: UnsafeMutablePointer<UInt8>, width: Int
    ) {
        typealias Pixel = SIMD4<Float>
        let source = UnsafeRawPointer(sum)
        @inline(__always) func load(_ pixel: Int) -> Pixel { source.loadUnaligned(fromByteOffset: pixel &* 16, as: Pixel.self) }
        // Clamped (negative lobes overshoot), then rounded through the mantissa (`PixelLoop.magic`).
        @inline(__always) func store(_ value: Pixel, at x: Int) {
            // Masks, not `clamped`: its pointwiseMin/Max were left as calls here.
            let low = Pixel(repeating: 0), high = Pixel(repeating: 255)
            var v = value
            v.replace(with: low, where: v .< low)
            v.replace(with: high, where: v .> high)
            v += Pixel(repeating: PixelLoop.magic)
            UnsafeMutableRawPointer(row + x &* 4).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: unsafeBitCast(v, to: SIMD4<UInt32>.self)), as: SIMD4<UInt8>.self)
        }
        var x = 0
        while x + 4 <= width {
            let b0 = first[x], b1 = first[x + 1], b2 = first[x + 2], b3 = first[x + 3]
            let w0 = weights + x &* taps, w1 = w0 + taps, w2 = w1 + taps, w3 = w2 + taps
            var a0 = Pixel(), a1 = Pixel(), a2 = Pixel(), a3 = Pixel()
            for k in 0..<taps {
                a0 = a0 + w0[k] * load(b0 &+ k)
                a1 = a1 + w1[k] * load(b1 &+ k)
                a2 = a2 + w2[k] * load(b2 &+ k)
                a3 = a3 + w3[k] * load(b3 &+ k)
            }
            store(a0, at: x)
            store(a1, at: x + 1)
            store(a2, at: x + 2)
            store(a3, at: x + 3)
            x += 4
        }
        while x < width {
            let b = first[x], w = weights + x &* taps
            var a = Pixel()
            for k in 0..<taps { a = a + w[k] * load(b &+ k) }
            store(a, at: x)
            x += 1
        }
    }
}
