/// Pixel loops that gain from a wider vector unit. This file is compiled twice: here for the
/// baseline x86-64 (SSE2) and, through a symbolic link, in `PhotoClusterKernelsAVX2` for CPUs
/// with AVX2 (`-target-cpu haswell`); `PhotoClusterCore.KernelSet` picks one at run time. The
/// build never fuses multiplies and adds, so both give the same bytes.
public enum SepiaKernel {
    /// The inner loop, written so the release build vectorises it (`bench/run` and FilterBenchmark
    /// print its speed; ~4.5x the plain per-byte loop): each pixel is one 32-bit load and store,
    /// channels are split with shifts and masks, the arithmetic is branch-free float, and float →
    /// byte adds 1.5·2²³ so the rounded integer lands in the low mantissa bits (no trapping
    /// conversion); the three biased words are summed into place and the bias taken off at once.
    /// keep·x + min(s, 255·i) never exceeds 255, so no channel carries into the next. This rounds
    /// halves to even where the definition rounds them away from zero: they differ only on an
    /// exact .5, by one.
    @inline(never)  // never inlined into a module built for another CPU (see KernelSet)
    public static func tone(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>, count: Int, intensity: Float) {
        PixelLoop.run(source, destination) { toneLoop($0, into: $1, count: count, intensity: intensity) }
    }

    @inline(__always)
    private static func toneLoop(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>, count: Int, intensity i: Float) {
        let keep = 1 - i
        let m00 = Float(0.393) * i, m01 = Float(0.769) * i, m02 = Float(0.189) * i
        let m10 = Float(0.349) * i, m11 = Float(0.686) * i, m12 = Float(0.168) * i
        let m20 = Float(0.272) * i, m21 = Float(0.534) * i, m22 = Float(0.131) * i
        let cap = 255 * i
        let magic: Float = 12_582_912  // 1.5·2²³: magic + v has round(v) in its low bits for 0 ≤ v < 2²²
        let bias = magic.bitPattern &+ (magic.bitPattern << 8) &+ (magic.bitPattern << 16)
        // Source and destination are either the same buffer or disjoint ones.
        let input = UnsafeRawPointer(source), output = UnsafeMutableRawPointer(destination)
        input.withMemoryRebound(to: UInt32.self, capacity: count) { pixels in
            output.withMemoryRebound(to: UInt32.self, capacity: count) { results in
            for n in 0..<count {
                let word = UInt32(littleEndian: pixels[n])
                let r = Float(Int32(bitPattern: word & 0xFF))
                let g = Float(Int32(bitPattern: (word >> 8) & 0xFF))
                let b = Float(Int32(bitPattern: (word >> 16) & 0xFF))
                var sr = m00 * r + m01 * g + m02 * b
                var sg = m10 * r + m11 * g + m12 * b
                var sb = m20 * r + m21 * g + m22 * b
                sr = sr < cap ? sr : cap
                sg = sg < cap ? sg : cap
                sb = sb < cap ? sb : cap
                let br = (keep * r + sr + magic).bitPattern
                let bg = (keep * g + sg + magic).bitPattern
                let bb = (keep * b + sb + magic).bitPattern
                let rgb = (br &+ (bg << 8) &+ (bb << 16)) &- bias
                results[n] = ((rgb & 0x00FF_FFFF) | (word & 0xFF00_0000)).littleEndian
            }
            }
        }
    }
}

/// How the pixel loops are called.
enum PixelLoop {
    /// Runs `loop(source, destination)`, passing one pointer for both when they are the same.
    /// The vectoriser guards a loop over two pointers with an overlap check and runs it one pixel
    /// at a time when they overlap, in place included (6x slower); one pointer for both tells it
    /// that each pixel is read before it is written.
    @inline(__always)
    static func run(_ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>,
                    _ loop: (UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>) -> Void) {
        if UnsafeMutablePointer(mutating: source) == destination {
            loop(UnsafePointer(destination), destination)
        } else {
            loop(source, destination)
        }
    }
}
