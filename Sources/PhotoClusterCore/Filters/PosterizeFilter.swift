/// Posterize: each of r, g, b is quantised to `levels` evenly spaced values,
/// q = round(round(in·(levels − 1)/255)·255/(levels − 1)), rounding halves away from zero
/// (so with 3 levels the middle value is 128). Alpha is unchanged.
public struct PosterizeFilter: PointFilter {
    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "posterize", version: "1", summary: "few flat tones per channel",
            parameters: [FilterParameter(key: "levels", kind: .int, range: 2...64, defaultValue: 4, summary: "values each channel keeps")]
        )
    }

    /// Gray stays gray: the same table for r, g and b.
    public var keepsGray: Bool { true }

    public func pixelTransform(parameters: FilterParameters) -> PixelTransform {
        let steps = parameters["levels"] - 1
        return ChannelTable.transform { i in
            let level = (Double(i) * steps / 255).rounded(.toNearestOrAwayFromZero)
            return UInt8((level * 255 / steps).rounded(.toNearestOrAwayFromZero))
        }
    }
}
