/// Rec. 709 grayscale, built twice (see `PixelLoop` and `KernelSet`).
public enum GrayscaleKernel {
    /// Each of r, g, b becomes round((1 − a)·c + a·Y), Y = 0.2126·R + 0.7152·G + 0.0722·B; alpha
    /// is kept. The result never exceeds 255 (the weights sum to one).
    @inline(never)  // never inlined into a module built for another CPU (see KernelSet)
    public static func gray(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>, count: Int, amount a: Float) {
        let keep = 1 - a
        let kr = Float(0.2126) * a, kg = Float(0.7152) * a, kb = Float(0.0722) * a
        let magic = PixelLoop.magic
        PixelLoop.mapPixels(source, into: destination, count: count) { word in
            let (r, g, b) = PixelLoop.channels(word)
            let y = kr * r + kg * g + kb * b + magic
            return PixelLoop.pack(keep * r + y, keep * g + y, keep * b + y, alphaOf: word)
        }
    }
}
