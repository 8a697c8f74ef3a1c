/// Sepia tone, built twice (see `PixelLoop` and `KernelSet`).
public enum SepiaKernel {
    /// Per pixel s = i·M·(r, g, b), each channel capped at 255·i, then keep·x + s with keep = 1 − i;
    /// alpha is kept. keep·x + min(s, 255·i) never exceeds 255. `bench/run` and FilterBenchmark
    /// print its speed (~4.5x the plain per-byte loop, ~1.6x more with AVX2).
    @inline(never)  // never inlined into a module built for another CPU (see KernelSet)
    public static func tone(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>, count: Int, intensity i: Float) {
        let keep = 1 - i
        let m00 = Float(0.393) * i, m01 = Float(0.769) * i, m02 = Float(0.189) * i
        let m10 = Float(0.349) * i, m11 = Float(0.686) * i, m12 = Float(0.168) * i
        let m20 = Float(0.272) * i, m21 = Float(0.534) * i, m22 = Float(0.131) * i
        let cap = 255 * i
        let magic = PixelLoop.magic
        PixelLoop.mapPixels(source, into: destination, count: count) { word in
            let (r, g, b) = PixelLoop.channels(word)
            var sr = m00 * r + m01 * g + m02 * b
            var sg = m10 * r + m11 * g + m12 * b
            var sb = m20 * r + m21 * g + m22 * b
            sr = sr < cap ? sr : cap
            sg = sg < cap ? sg : cap
            sb = sb < cap ? sb : cap
            return PixelLoop.pack(keep * r + sr + magic, keep * g + sg + magic, keep * b + sb + magic, alphaOf: word)
        }
    }
}
