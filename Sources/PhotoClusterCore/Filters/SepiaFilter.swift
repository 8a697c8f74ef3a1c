/// Sepia tone: per pixel s = M·(r, g, b), each channel clamped to 255, then
/// out = round((1 − i)·in + i·s) with intensity i. Alpha is unchanged.
public struct SepiaFilter: PointFilter {
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

    public func pixelTransform(parameters: FilterParameters) -> PixelTransform {
        let intensity = Float(parameters["intensity"])
        let kernels = KernelSet.current
        return { source, destination, count in kernels.sepiaTone(source, into: destination, count: count, intensity: intensity) }
    }
}
