/// Grayscale by Rec. 709 luma Y = 0.2126·R + 0.7152·G + 0.0722·B. Each of r, g, b becomes
/// round((1 − a)·in + a·Y) for amount a, so amount 1 writes round(Y) to all three. Alpha is unchanged.
public struct GrayscaleFilter: PointFilter {
    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "grayscale", version: "1", summary: "shades of gray by Rec. 709 luma",
            parameters: [FilterParameter(key: "amount", range: 0...1, defaultValue: 1, summary: "0 leaves the photo as it is, 1 is fully gray")]
        )
    }

    /// Gray stays gray: the luma of a gray pixel is its value.
    public var keepsGray: Bool { true }

    public func pixelTransform(parameters: FilterParameters) -> PixelTransform {
        let amount = Float(parameters["amount"])
        let kernels = KernelSet.current
        return { source, destination, count in kernels.grayscale(source, into: destination, count: count, amount: amount) }
    }
}
