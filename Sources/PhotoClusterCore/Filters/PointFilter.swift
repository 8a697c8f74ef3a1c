/// Maps `count` pixels of RGBA8 at `source` to `destination`, which is either the same memory or
/// memory that does not overlap it.
public typealias PixelTransform = @Sendable (_ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>, _ count: Int) -> Void

/// A filter whose every output pixel depends on the same input pixel only, and which keeps the
/// size and alpha. Such a filter can run on any band of rows wherever it lies, so the worker fuses
/// a chain's trailing point filters into the encoder: each band is filtered into a buffer that
/// stays in cache just before it is compressed, with no pass over the whole image and no image
/// of its own (bench/run measures what that saves).
public protocol PointFilter: FilterStage {
    /// The mapping for `parameters`, ready to run on any number of bands and threads.
    func pixelTransform(parameters: FilterParameters) -> PixelTransform

    /// A gray pixel (r = g = b) stays gray, so a gray photo can still be written gray.
    var keepsGray: Bool { get }
}

extension PointFilter {
    public var keepsGray: Bool { false }
}

/// Both ways of filtering a whole image, from the transform.
extension PointFilter {
    /// The transform in place, band by band.
    public func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        let transform = pixelTransform(parameters: parameters)
        try RowBands.forEach(in: image, isCancelled: isCancelled) { rows in
            let start = image.pixels + rows.lowerBound * image.width * 4
            transform(start, start, rows.count * image.width)
        }
        return image
    }

    /// Reads the image and writes the copy in one pass (no separate copy pass).
    public func apply(toCopyOf image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        guard let output = FilterPixels.allocate(width: image.width, height: image.height) else {
            throw FilterFailure(filter: descriptor.name, reason: "out of memory for \(image.width)x\(image.height) pixels")
        }
        let transform = pixelTransform(parameters: parameters)
        try RowBands.forEach(in: image, isCancelled: isCancelled) { rows in
            let offset = rows.lowerBound * image.width * 4
            transform(image.pixels + offset, output.pixels + offset, rows.count * image.width)
        }
        return output
    }
}

extension ConfiguredFilter {
    /// A point filter that leaves gray pixels gray.
    public var keepsGray: Bool { (stage as? PointFilter)?.keepsGray ?? false }

    /// The filter's pixel transform, when it is a point filter.
    public var pixelTransform: PixelTransform? {
        (stage as? PointFilter)?.pixelTransform(parameters: parameters)
    }
}

extension Array where Element == ConfiguredFilter {
    /// Where the chain's trailing run of point filters begins: the filters from here on can run
    /// inside the encoder (`count` when the last filter is not a point filter).
    public var pointFilterTailStart: Int {
        (lastIndex { !($0.stage is PointFilter) }).map { $0 + 1 } ?? 0
    }
}

/// Several pixel transforms as one: the first reads the source, the rest work in place on the
/// destination.
public func chained(_ transforms: [PixelTransform]) -> PixelTransform? {
    guard let first = transforms.first else { return nil }
    let rest = Array(transforms.dropFirst())
    if rest.isEmpty { return first }
    return { source, destination, count in
        first(source, destination, count)
        for transform in rest { transform(UnsafePointer(destination), destination, count) }
    }
}
