/// Rec. 709 grayscale, built twice like `SepiaKernel` (see there and `KernelSet`).
public enum GrayscaleKernel {
    /// Each of r, g, b becomes round((1 − a)·c + a·Y), Y = 0.2126·R + 0.7152·G + 0.0722·B; alpha
    /// is kept. Written like `SepiaKernel.tone` so it vectorises: one 32-bit load and store per
    /// pixel, float arithmetic, rounding through the low mantissa bits of 1.5·2²³ + v (halves to
    /// even, where the definition rounds them up: they differ only on an exact .5, by one). The
    /// result never exceeds 255 (the weights sum to one), so no channel carries into the next.
    @inline(never)  // never inlined into a module built for another CPU (see KernelSet)
    public static func gray(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>, count: Int, amount: Float) {
        PixelLoop.run(source, destination) { grayLoop($0, into: $1, count: count, amount: amount) }
    }

    @inline(__always)
    private static func grayLoop(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>, count: Int, amount a: Float) {
        let keep = 1 - a
        let kr = Float(0.2126) * a, kg = Float(0.7152) * a, kb = Float(0.0722) * a
        let magic: Float = 12_582_912
        let bias = magic.bitPattern &+ (magic.bitPattern << 8) &+ (magic.bitPattern << 16)
        let input = UnsafeRawPointer(source), output = UnsafeMutableRawPointer(destination)
        input.withMemoryRebound(to: UInt32.self, capacity: count) { pixels in
            output.withMemoryRebound(to: UInt32.self, capacity: count) { results in
            for n in 0..<count {
                let word = UInt32(littleEndian: pixels[n])
                let r = Float(Int32(bitPattern: word & 0xFF))
                let g = Float(Int32(bitPattern: (word >> 8) & 0xFF))
                let b = Float(Int32(bitPattern: (word >> 16) & 0xFF))
                let y = kr * r + kg * g + kb * b + magic
                let br = (keep * r + y).bitPattern
                let bg = (keep * g + y).bitPattern
                let bb = (keep * b + y).bitPattern
                let rgb = (br &+ (bg << 8) &+ (bb << 16)) &- bias
                results[n] = ((rgb & 0x00FF_FFFF) | (word & 0xFF00_0000)).littleEndian
            }
            }
        }
    }
}
