/// Sepia tone: per pixel s = M·(r, g, b), each channel clamped to 255, then
/// out = round((1 − i)·in + i·s) with intensity i. Alpha is unchanged.
public struct SepiaFilter: FilterStage {
    public static let matrix: [[Double]] = [
        [0.393, 0.769, 0.189],
        [0.349, 0.686, 0.168],
        [0.272, 0.534, 0.131],
    ]

    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "sepia", version: "1", summary: "warm brown tone of old photographs",
            parameters: [FilterParameter(key: "intensity", range: 0...1, defaultValue: 0.8, summary: "0 leaves the photo as it is, 1 is full sepia")]
        )
    }

    public func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        let intensity = Float(parameters["intensity"])
        try RowBands.forEach(in: image, isCancelled: isCancelled) { rows in
            Self.tone(image.pixels + rows.lowerBound * image.width * 4, count: rows.count * image.width, intensity: intensity)
        }
        return image
    }

    /// The inner loop: plain float arithmetic over an unsafe buffer, written so the compiler
    /// can keep it free of bounds checks and calls.
    @inline(__always)
    static func tone(_ p: UnsafeMutablePointer<UInt8>, count: Int, intensity i: Float) {
        let keep = 1 - i
        let m00 = Float(0.393) * i, m01 = Float(0.769) * i, m02 = Float(0.189) * i
        let m10 = Float(0.349) * i, m11 = Float(0.686) * i, m12 = Float(0.168) * i
        let m20 = Float(0.272) * i, m21 = Float(0.534) * i, m22 = Float(0.131) * i
        let cap = 255 * i
        for n in 0..<count {
            let q = p + n &* 4
            let r = Float(q[0]), g = Float(q[1]), b = Float(q[2])
            let sr = min(m00 * r + m01 * g + m02 * b, cap)
            let sg = min(m10 * r + m11 * g + m12 * b, cap)
            let sb = min(m20 * r + m21 * g + m22 * b, cap)
            q[0] = UInt8(min(keep * r + sr + 0.5, 255))
            q[1] = UInt8(min(keep * g + sg + 0.5, 255))
            q[2] = UInt8(min(keep * b + sb + 0.5, 255))
        }
    }
}
