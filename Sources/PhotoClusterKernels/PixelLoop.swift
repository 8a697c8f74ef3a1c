/// Pixel loops that gain from a wider vector unit. The files of this module are compiled twice:
/// here for the baseline x86-64 (SSE2) and, through symbolic links, in `PhotoClusterKernelsAVX2`
/// for CPUs with AVX2 (`-target-cpu haswell`); `PhotoClusterCore.KernelSet` picks one at run
/// time. The build never fuses multiplies and adds, so both give the same bytes.
///
/// The per-pixel loops share one shape, which the release build vectorises: each RGBA8 pixel is
/// one 32-bit load and store, channels are split with shifts and masks, the arithmetic is
/// branch-free float, and float → byte adds 1.5·2²³ (`magic`) so the rounded integer lands in the
/// low mantissa bits (no trapping conversion); the three biased words are summed into place and
/// the bias taken off at once. That rounds halves to even where the filters' definitions round
/// them up: they differ only on an exact .5, by one.
enum PixelLoop {
    /// 1.5·2²³: magic + v has round(v) in its low bits for 0 ≤ v < 2²².
    static let magic: Float = 12_582_912

    /// Maps every pixel word of `source` into `destination` (the same buffer or a disjoint one),
    /// passing one pointer for both when they are the same: the vectoriser guards a loop over
    /// two pointers with an overlap check and runs it one pixel at a time when they overlap, in
    /// place included (6x slower); one pointer tells it each pixel is read before it is written.
    @inline(__always)
    static func mapPixels(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>, count: Int,
                          _ pixel: (UInt32) -> UInt32) {
        if UnsafeMutablePointer(mutating: source) == destination {
            mapWords(UnsafeRawPointer(destination), into: UnsafeMutableRawPointer(destination), count: count, pixel)
        } else {
            mapWords(UnsafeRawPointer(source), into: UnsafeMutableRawPointer(destination), count: count, pixel)
        }
    }

    @inline(__always)
    private static func mapWords(_ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer, count: Int,
                                 _ pixel: (UInt32) -> UInt32) {
        input.withMemoryRebound(to: UInt32.self, capacity: count) { pixels in
            output.withMemoryRebound(to: UInt32.self, capacity: count) { results in
                for n in 0..<count { results[n] = pixel(UInt32(littleEndian: pixels[n])).littleEndian }
            }
        }
    }

    /// Red, green and blue of a pixel word, as floats.
    @inline(__always)
    static func channels(_ word: UInt32) -> (r: Float, g: Float, b: Float) {
        (Float(Int32(bitPattern: word & 0xFF)), Float(Int32(bitPattern: (word >> 8) & 0xFF)), Float(Int32(bitPattern: (word >> 16) & 0xFF)))
    }

    /// The pixel word of three channel values that already have `magic` added (each 0...255 once
    /// rounded, so none carries into the next), with the alpha of `word`.
    @inline(__always)
    static func pack(_ r: Float, _ g: Float, _ b: Float, alphaOf word: UInt32) -> UInt32 {
        let bias = magic.bitPattern &+ (magic.bitPattern << 8) &+ (magic.bitPattern << 16)
        let rgb = (r.bitPattern &+ (g.bitPattern << 8) &+ (b.bitPattern << 16)) &- bias
        return (rgb & 0x00FF_FFFF) | (word & 0xFF00_0000)
    }
}
