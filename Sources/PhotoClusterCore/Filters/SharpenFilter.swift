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
        let amount = Float(parameters["amount"])
        let width = image.width
        try BlurFilter.convolve(image, sigma: parameters["sigma"], isCancelled: isCancelled) { y, blurred in
            Self.unsharp(image.pixels + y * width * 4, blurred: blurred, count: width, amount: amount)
        }
        return image
    }

    @inline(__always)
    static func unsharp(_ p: UnsafeMutablePointer<UInt8>, blurred b: UnsafePointer<Float>, count: Int, amount: Float) {
        for n in 0..<count {
            let q = p + n &* 4, s = b + n &* 4
            let r = Float(q[0]), g = Float(q[1]), bl = Float(q[2])
            q[0] = UInt8(min(max(r + amount * (r - s[0]), 0) + 0.5, 255))
            q[1] = UInt8(min(max(g + amount * (g - s[1]), 0) + 0.5, 255))
            q[2] = UInt8(min(max(bl + amount * (bl - s[2]), 0) + 0.5, 255))
        }
    }
}
