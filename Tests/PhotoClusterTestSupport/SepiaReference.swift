import PhotoClusterCore

/// Sepia computed from its definition in Double, independent of the product's implementation:
/// s = min(M·rgb, 255), out = round((1 − i)·in + i·s), alpha unchanged.
public enum SepiaReference {
    public static func apply(_ image: RGBAImage, intensity i: Double = 0.8) -> RGBAImage {
        let m = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]
        let out = image.copy()!
        for n in 0..<image.pixelCount {
            let p = image.pixels + n * 4
            let rgb = [Double(p[0]), Double(p[1]), Double(p[2])]
            for row in 0..<3 {
                let s = min(255, m[row][0] * rgb[0] + m[row][1] * rgb[1] + m[row][2] * rgb[2])
                out.pixels[n * 4 + row] = UInt8(((1 - i) * rgb[row] + i * s).rounded(.toNearestOrAwayFromZero))
            }
        }
        return out
    }

    /// Mean absolute difference per colour channel, and the largest one.
    public static func difference(_ a: RGBAImage, _ b: RGBAImage) -> (mean: Double, max: Int) {
        precondition(a.width == b.width && a.height == b.height)
        var total = 0
        var worst = 0
        for n in 0..<a.pixelCount {
            for c in 0..<3 {
                let d = abs(Int(a.pixels[n * 4 + c]) - Int(b.pixels[n * 4 + c]))
                total += d
                worst = max(worst, d)
            }
        }
        return (Double(total) / Double(a.pixelCount * 3), worst)
    }
}
