/// A thumbnail that fits in a box (the whole photo, its aspect ratio kept) or fills it (scaled to
/// cover the box, then the middle cut out). Never enlarges: a photo smaller than the box stays
/// as it is when fitting, and is cut to the box (where it is larger) when filling. Shrinks with
/// `kernel` (Lanczos-3 unless told) after a box shrink for large reductions (see
/// `ReductionPlan`); when it starts a chain the box shrink happens while decoding.
public struct ThumbnailFilter: ReducingFilter {
    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "thumbnail", version: "2", summary: "fit or fill a box, never enlarging",
            parameters: [
                FilterParameter(key: "width", kind: .int, range: 1...20000, defaultValue: 256, summary: "width of the box in pixels"),
                FilterParameter(key: "height", kind: .int, range: 1...20000, defaultValue: 256, summary: "height of the box in pixels"),
                FilterParameter(key: "fill", kind: .bool, range: 0...1, defaultValue: 0, summary: "1: cover the box and cut out its middle; 0: fit inside it"),
            ] + ResampleParameters.list
        )
    }

    public func plan(for size: ImageSize, parameters: FilterParameters) -> ReductionPlan {
        let box = ImageSize(width: Int(parameters["width"]), height: Int(parameters["height"]))
        let w = size.width, h = size.height
        guard parameters["fill"] != 0 else {
            guard w > box.width || h > box.height else { return ReductionPlan(scaled: size) }
            let fitted = ResizeFilter.fittedSize(width: w, height: h, boxWidth: box.width, boxHeight: box.height)
            return ReductionPlan(from: size, scaled: ImageSize(width: fitted.width, height: fitted.height), parameters: parameters)
        }
        // Cover: the side that limits the scale takes the box's size, the other at least the box's.
        var scaled: ImageSize
        if box.width * h >= box.height * w {
            scaled = ImageSize(width: box.width, height: max(box.height, (2 * h * box.width + w) / (2 * w)))
        } else {
            scaled = ImageSize(width: max(box.width, (2 * w * box.height + h) / (2 * h)), height: box.height)
        }
        if scaled.width > w || scaled.height > h { scaled = size }  // never enlarge
        let crop = ImageSize(width: min(box.width, scaled.width), height: min(box.height, scaled.height))
        return ReductionPlan(
            from: size, scaled: scaled,
            crop: ReductionPlan.Crop(x: (scaled.width - crop.width) / 2, y: (scaled.height - crop.height) / 2, size: crop),
            parameters: parameters)
    }
}
