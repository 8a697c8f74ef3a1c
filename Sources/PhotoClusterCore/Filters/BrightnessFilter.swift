/// Brightness and contrast on r, g, b: out = round(clamp((in − 127.5)·contrast + 127.5 + brightness·255, 0, 255)),
/// rounding halves away from zero. Alpha is unchanged.
public struct BrightnessFilter: PointFilter {
    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "brightness", version: "1", summary: "brightness and contrast",
            parameters: [
                FilterParameter(key: "brightness", range: -1...1, defaultValue: 0, summary: "added to every channel, in units of 255"),
                FilterParameter(key: "contrast", range: 0...4, defaultValue: 1, summary: "scale of the distance from mid-gray: 0 is flat gray, 1 unchanged"),
            ]
        )
    }

    /// Gray stays gray: the same table for r, g and b.
    public var keepsGray: Bool { true }

    public func pixelTransform(parameters: FilterParameters) -> PixelTransform {
        let brightness = parameters["brightness"], contrast = parameters["contrast"]
        return ChannelTable.transform { i in
            let v = (Double(i) - 127.5) * contrast + 127.5 + brightness * 255
            return UInt8(min(max(v, 0), 255).rounded(.toNearestOrAwayFromZero))
        }
    }
}
