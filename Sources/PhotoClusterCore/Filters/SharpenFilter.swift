/// Unsharp mask on r, g, b: out = round(clamp(in + amount·(in − blur(in)), 0, 255)), where blur is
/// `BlurFilter`'s gaussian with this sigma (clamp to edge). Alpha is unchanged.
public struct SharpenFilter: FilterStage {
    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "sharpen", version: "1", summary: "unsharp mask",
            parameters: [
                FilterParameter(key: "amount", range: 0...5, defaultValue: 1, summary: "how much of the detail (photo minus its blur) is added back"),
                FilterParameter(key: "sigma", range: 0.1...20, defaultValue: 1, summary: "blur radius in pixels that separates detail from the rest"),
            ]
        )
    }

    public func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        try Self.sharpen(image, amount: Float(parameters["amount"]), sigma: parameters["sigma"], isCancelled: isCancelled)
        return image
    }

    /// Sharpens `image` in place (also after `resize` and `thumbnail` reductions).
    static func sharpen(_ image: RGBAImage, amount: Float, sigma: Double, isCancelled: () -> Bool) throws {
        let width = image.width
        try BlurFilter.convolve(image, sigma: sigma, isCancelled: isCancelled) { y, blurred in
            Self.unsharp(image.pixels + y * width * 4, blurred: blurred, count: width, amount: amount)
        }
    }

    /// Every byte of the row is computed, alpha too, and alpha is then chosen back: with no
    /// per-channel branch and no trapping conversion the loop vectorises. Rounds like
    /// `BlurFilter.storeRounded` (through the mantissa of 1.5·2²³).
    @inline(__always)
    static func unsharp(_ p: UnsafeMutablePointer<UInt8>, blurred b: UnsafePointer<Float>, count: Int, amount: Float) {
        let magic = BlurFilter.roundingMagic
        for i in 0..<(count &* 4) {
            let x = Float(p[i])
            let v = min(max(x + amount * (x - b[i]), 0), 255) + magic
            let sharpened = UInt8(truncatingIfNeeded: v.bitPattern)
            p[i] = i & 3 == 3 ? p[i] : sharpened
        }
    }
}
