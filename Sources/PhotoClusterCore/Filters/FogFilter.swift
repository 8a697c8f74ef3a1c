/// White fog over the top and bottom bands. Row y of an H-row image is e = min(y, H − 1 − y) rows
/// from the nearest edge; with t = e / (band·H), its white weight is w = density·(1 − t) when
/// t < 1 and 0 otherwise (band 0 fogs nothing). Each of r, g, b becomes round(in·(1 − w) + 255·w).
/// Alpha is unchanged.
public struct FogFilter: FilterStage {
    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "fog", version: "1", summary: "white haze fading in from the top and bottom edges",
            parameters: [
                FilterParameter(key: "density", range: 0...1, defaultValue: 0.6, summary: "white weight at the very edge"),
                FilterParameter(key: "band", range: 0...0.5, defaultValue: 0.25, summary: "fraction of the height fogged at the top and at the bottom"),
            ]
        )
    }

    public func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        let density = parameters["density"], band = parameters["band"] * Double(image.height)
        let width = image.width, height = image.height
        try RowBands.forEach(in: image, isCancelled: isCancelled) { rows in
            for y in rows {
                let t = band > 0 ? Double(min(y, height - 1 - y)) / band : 1
                guard t < 1 else { continue }
                let w = density * (1 - t)
                Self.whiten(image.pixels + y * width * 4, count: width, keep: Float(1 - w), add: Float(255 * w) + 0.5)
            }
        }
        return image
    }

    @inline(__always)
    static func whiten(_ p: UnsafeMutablePointer<UInt8>, count: Int, keep: Float, add: Float) {
        for n in 0..<count {
            let q = p + n &* 4
            q[0] = UInt8(min(Float(q[0]) * keep + add, 255))
            q[1] = UInt8(min(Float(q[1]) * keep + add, 255))
            q[2] = UInt8(min(Float(q[2]) * keep + add, 255))
        }
    }
}
