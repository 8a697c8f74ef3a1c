/// Grayscale by Rec. 709 luma Y = 0.2126·R + 0.7152·G + 0.0722·B. Each of r, g, b becomes
/// round((1 − a)·in + a·Y) for amount a, so amount 1 writes round(Y) to all three. Alpha is unchanged.
public struct GrayscaleFilter: FilterStage {
    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "grayscale", version: "1", summary: "shades of gray by Rec. 709 luma",
            parameters: [FilterParameter(key: "amount", range: 0...1, defaultValue: 1, summary: "0 leaves the photo as it is, 1 is fully gray")]
        )
    }

    public func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        let amount = Float(parameters["amount"])
        try RowBands.forEach(in: image, isCancelled: isCancelled) { rows in
            Self.gray(image.pixels + rows.lowerBound * image.width * 4, count: rows.count * image.width, amount: amount)
        }
        return image
    }

    @inline(__always)
    static func gray(_ p: UnsafeMutablePointer<UInt8>, count: Int, amount a: Float) {
        let keep = 1 - a
        let kr = Float(0.2126) * a, kg = Float(0.7152) * a, kb = Float(0.0722) * a
        for n in 0..<count {
            let q = p + n &* 4
            let r = Float(q[0]), g = Float(q[1]), b = Float(q[2])
            let y = kr * r + kg * g + kb * b
            q[0] = UInt8(min(keep * r + y + 0.5, 255))
            q[1] = UInt8(min(keep * g + y + 0.5, 255))
            q[2] = UInt8(min(keep * b + y + 0.5, 255))
        }
    }
}
