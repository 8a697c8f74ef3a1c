/// A filter that scales the photo to a size that depends only on the photo's size, then maybe
/// cuts a rectangle out of it: `resize` and `thumbnail`. When such a filter starts a chain, the
/// worker shrinks the photo while decoding it (see `ImageCodec.decode`'s `reduceTo`) instead of
/// decoding it whole first.
public protocol ReducingFilter: FilterStage {
    /// What the filter makes of an upright photo of `size`.
    func plan(for size: ImageSize, parameters: FilterParameters) -> ReductionPlan
}

/// Scale to `scaled` (area averaging when shrinking, bilinear when growing), then keep the
/// rectangle `crop` of it, when there is one.
public struct ReductionPlan: Hashable, Sendable {
    /// A rectangle of the scaled image.
    public struct Crop: Hashable, Sendable {
        public var x: Int
        public var y: Int
        public var size: ImageSize

        public init(x: Int, y: Int, size: ImageSize) {
            self.x = x
            self.y = y
            self.size = size
        }
    }

    public var scaled: ImageSize
    public var crop: Crop?

    public init(scaled: ImageSize, crop: Crop? = nil) {
        self.scaled = scaled
        self.crop = crop
    }

    /// The output's size.
    public var output: ImageSize { crop?.size ?? scaled }
}

extension ReducingFilter {
    /// Carries the plan out on an image (scaled by `Resample.area`, then cut).
    public func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        let plan = plan(for: ImageSize(width: image.width, height: image.height), parameters: parameters)
        return try finish(plan, from: image, isCancelled: isCancelled)
    }

    /// The plan never changes its input, so a copy is made only when it returns the image as is.
    public func apply(toCopyOf image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        let output = try apply(to: image, parameters: parameters, isCancelled: isCancelled)
        guard output === image else { return output }
        guard let copy = FilterPixels.copy(of: image) else {
            throw FilterFailure(filter: descriptor.name, reason: "out of memory copying \(image.width)x\(image.height) pixels")
        }
        return copy
    }

    /// The rest of the plan for an image already scaled to `plan.scaled` (as a reduced decode
    /// leaves it), or the whole plan for any other image.
    public func finish(_ plan: ReductionPlan, from image: RGBAImage, isCancelled: () -> Bool) throws -> RGBAImage {
        if isCancelled() { throw FilterCancelled() }
        let scaled = image.width == plan.scaled.width && image.height == plan.scaled.height
            ? image : try Resample.area(image, to: plan.scaled, filter: descriptor.name, isCancelled: isCancelled)
        guard let crop = plan.crop, crop.size != plan.scaled else { return scaled }
        guard let output = RGBAImage(width: crop.size.width, height: crop.size.height) else {
            throw FilterFailure(filter: descriptor.name, reason: "cannot allocate a \(crop.size) image")
        }
        let rowBytes = crop.size.width * 4
        for y in 0..<crop.size.height {
            (output.pixels + y * rowBytes).update(from: scaled.pixels + ((crop.y + y) * scaled.width + crop.x) * 4, count: rowBytes)
        }
        return output
    }
}
