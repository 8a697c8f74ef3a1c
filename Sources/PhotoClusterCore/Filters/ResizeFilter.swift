/// Resizes to the largest size with the photo's aspect ratio that fits in width×height, enlarging
/// small photos too. The side that limits the scale takes the box's size; the other is
/// round(side·scale) (halves up), at least 1. Resamples with `kernel` (Lanczos-3 unless told),
/// after a box shrink for large reductions (see `ReductionPlan`); all four channels are
/// resampled as stored, not premultiplied. Returns a new image.
public struct ResizeFilter: ReducingFilter {
    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "resize", version: "2", summary: "fit within a box, keeping the aspect ratio",
            parameters: [
                FilterParameter(key: "width", kind: .int, range: 1...20000, defaultValue: 1024, summary: "width of the box in pixels"),
                FilterParameter(key: "height", kind: .int, range: 1...20000, defaultValue: 1024, summary: "height of the box in pixels"),
            ] + ResampleParameters.list
        )
    }

    /// Integer arithmetic, so the size does not depend on floating-point rounding.
    public static func fittedSize(width w: Int, height h: Int, boxWidth bw: Int, boxHeight bh: Int) -> (width: Int, height: Int) {
        if bw * h <= bh * w {
            return (bw, min(bh, max(1, (2 * h * bw + w) / (2 * w))))
        }
        return (min(bw, max(1, (2 * w * bh + h) / (2 * h))), bh)
    }

    public func plan(for size: ImageSize, parameters: FilterParameters) -> ReductionPlan {
        let fitted = Self.fittedSize(width: size.width, height: size.height, boxWidth: Int(parameters["width"]), boxHeight: Int(parameters["height"]))
        return ReductionPlan(from: size, scaled: ImageSize(width: fitted.width, height: fitted.height), parameters: parameters)
    }
}
