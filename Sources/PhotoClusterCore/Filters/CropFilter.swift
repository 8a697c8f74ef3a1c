/// Cuts out the rectangle at (x, y) of width×height. A rectangle reaching past the right or bottom
/// edge is clipped to the image (so the defaults keep everything right of and below (x, y)); one
/// that starts outside the image is refused with `FilterFailure`. Returns a new image.
public struct CropFilter: FilterStage {
    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "crop", version: "1", summary: "cut out a rectangle",
            parameters: [
                FilterParameter(key: "x", kind: .int, range: 0...1_000_000, defaultValue: 0, summary: "left edge of the rectangle in pixels"),
                FilterParameter(key: "y", kind: .int, range: 0...1_000_000, defaultValue: 0, summary: "top edge of the rectangle in pixels"),
                FilterParameter(key: "width", kind: .int, range: 1...1_000_000, defaultValue: 1_000_000, summary: "width in pixels, clipped at the right edge"),
                FilterParameter(key: "height", kind: .int, range: 1...1_000_000, defaultValue: 1_000_000, summary: "height in pixels, clipped at the bottom edge"),
            ]
        )
    }

    public func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        let x = Int(parameters["x"]), y = Int(parameters["y"])
        let width = min(Int(parameters["width"]), image.width - x), height = min(Int(parameters["height"]), image.height - y)
        guard width > 0, height > 0 else {
            throw FilterFailure(filter: "crop", reason: "the rectangle at x=\(x), y=\(y) starts outside the \(image.width)x\(image.height) image")
        }
        guard let output = RGBAImage(width: width, height: height) else {
            throw FilterFailure(filter: "crop", reason: "cannot allocate a \(width)x\(height) image")
        }
        try RowBands.forEach(in: output, isCancelled: isCancelled) { rows in
            for row in rows {
                let source = image.pixels + ((y + row) * image.width + x) * 4
                (output.pixels + row * width * 4).update(from: source, count: width * 4)
            }
        }
        return output
    }

    /// The input is only read: no copy of it first.
    public func apply(toCopyOf image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        try apply(to: image, parameters: parameters, isCancelled: isCancelled)
    }
}
