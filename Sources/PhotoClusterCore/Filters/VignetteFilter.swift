/// Darkens towards the corners. For the pixel centre (x + 0.5, y + 0.5) of a W×H image,
/// d = √((x + 0.5 − W/2)² + (y + 0.5 − H/2)²) / √((W/2)² + (H/2)²), so d is 0 at the centre and
/// 1 at the corners. With t = clamp((d − radius) / 0.5, 0, 1) and smoothstep S(t) = t²·(3 − 2t),
/// each of r, g, b becomes round(in · (1 − strength·S(t))): untouched inside `radius`, darkening
/// smoothly over the next 0.5 to the full `strength`. Alpha is unchanged.
public struct VignetteFilter: FilterStage {
    /// The width of the falloff, in units of the centre-to-corner distance.
    public static let falloff = 0.5

    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "vignette", version: "1", summary: "darker corners",
            parameters: [
                FilterParameter(key: "strength", range: 0...1, defaultValue: 0.5, summary: "fraction of the light removed where the falloff ends"),
                FilterParameter(key: "radius", range: 0.1...1.5, defaultValue: 0.75, summary: "distance from the centre, 1 being a corner, where darkening starts"),
            ]
        )
    }

    public func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        let strength = Float(parameters["strength"]), radius = Float(parameters["radius"])
        let width = image.width, height = image.height
        let cx = Float(width) / 2, cy = Float(height) / 2
        let scale = 1 / (cx * cx + cy * cy).squareRoot()
        let factors = UnsafeMutablePointer<Float>.allocate(capacity: width * 4)
        defer { factors.deallocate() }
        try RowBands.forEach(in: image, isCancelled: isCancelled) { rows in
            for y in rows {
                let dy = (Float(y) + 0.5 - cy) * scale
                Self.factors(factors, count: width, dy2: dy * dy, cx: cx, scale: scale, radius: radius, strength: strength)
                Self.darken(image.pixels + y * width * 4, count: width, factors: factors)
            }
        }
        return image
    }

    /// The row's factors first, one per byte (1 for alpha, which a factor of 1 leaves exact), in
    /// a loop the compiler can vectorise; then the bytes, in another.
    @inline(__always)
    static func factors(_ f: UnsafeMutablePointer<Float>, count: Int, dy2: Float, cx: Float, scale: Float, radius: Float, strength: Float) {
        let slope = 1 / Float(falloff)
        for n in 0..<count {
            let dx = (Float(n) + 0.5 - cx) * scale
            let t = min(max(((dx * dx + dy2).squareRoot() - radius) * slope, 0), 1)
            let factor = 1 - strength * t * t * (3 - 2 * t)
            let q = f + n &* 4
            q[0] = factor
            q[1] = factor
            q[2] = factor
            q[3] = 1
        }
    }

    /// Rounds like `BlurFilter.storeRounded` (through the mantissa of 1.5·2²³): branch-free, so
    /// the loop vectorises.
    @inline(__always)
    static func darken(_ p: UnsafeMutablePointer<UInt8>, count: Int, factors f: UnsafePointer<Float>) {
        let magic = BlurFilter.roundingMagic
        for i in 0..<(count &* 4) {
            let v = min(Float(p[i]) * f[i], 255) + magic
            p[i] = UInt8(truncatingIfNeeded: v.bitPattern)
        }
    }
}
