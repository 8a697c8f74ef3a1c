/// A filter that scales the photo to a size that depends only on the photo's size, then maybe
/// cuts a rectangle out of it: `resize` and `thumbnail`. When such a filter starts a chain, the
/// worker shrinks the photo while decoding it (see `ImageCodec.decode`'s `reduceTo`) instead of
/// decoding it whole first.
public protocol ReducingFilter: FilterStage {
    /// What the filter makes of an upright photo of `size`.
    func plan(for size: ImageSize, parameters: FilterParameters) -> ReductionPlan
}

/// Scale to `scaled`, then keep the rectangle `crop` of it, when there is one.
///
/// A large reduction goes in two steps, as libvips does it: an area-averaging box shrink to
/// `boxed` (done by the decoder while rows arrive when the filter starts the chain: JPEG's DCT
/// scaling, then exact area averaging), stopping while a factor of at least `gap` is left, then
/// the kernel for the rest. The box is fast but folds detail above its own Nyquist frequency back
/// as lower frequencies (moiré); the kernel, given the last factor of 2.5 to 5, removes what would
/// fold into the output, and costs little on an image already near the output's size.
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

    /// The factor the box shrink leaves the kernel, at least (libvips' `gap`). libvips uses 2;
    /// a zone plate shrunk 8× shows why 2.5: a box of 4 then Lanczos by 2 keeps rings at 0.3
    /// cycles per pixel as moiré (SSIM 0.92 against the exact Lanczos-3), a box of 3 then
    /// Lanczos by 2.7 does not (0.995).
    public static let gap = 2.5
    /// A reduction of at least this factor is followed by the optional sharpening.
    public static let sharpenFrom = 2.0
    /// The unsharp mask's radius after a reduction: only the finest detail is lifted.
    public static let sharpenSigma = 0.5

    public var scaled: ImageSize
    public var crop: Crop?
    /// What the box shrink makes of the (upright) input first; nil when the kernel does it all
    /// (enlarging, reductions under 2·gap, linear light).
    public var boxed: ImageSize?
    public var kernel: ResampleKernel
    /// Resample in linear light (no box shrink then: it would average sRGB values).
    public var linearLight: Bool
    /// The unsharp mask's amount after a reduction of `sharpenFrom` or more; 0: none.
    public var sharpen: Double

    public init(scaled: ImageSize, crop: Crop? = nil, boxed: ImageSize? = nil, kernel: ResampleKernel = .lanczos3, linearLight: Bool = false, sharpen: Double = 0) {
        self.scaled = scaled
        self.crop = crop
        self.boxed = boxed
        self.kernel = kernel
        self.linearLight = linearLight
        self.sharpen = sharpen
    }

    /// A plan from `input` to `scaled` with the resampling parameters of `resize` and `thumbnail`
    /// (see `ResampleParameters`): the box step chosen by `gap`.
    public init(from input: ImageSize, scaled: ImageSize, crop: Crop? = nil, parameters: FilterParameters) {
        let kernel = ResampleKernel(rawValue: Int(parameters["kernel"])) ?? .lanczos3
        let linear = parameters["linear"] != 0
        self.init(
            scaled: scaled, crop: crop, boxed: linear ? nil : Self.boxed(from: input, to: scaled), kernel: kernel, linearLight: linear,
            sharpen: parameters["sharpen"])
    }

    /// Per axis an integer box factor b = ⌊factor / gap⌋ (libvips' rule), the axis shrunk to
    /// ⌈input / b⌉ (what a JPEG decoder scaling by 1/b makes); nil when neither axis shrinks by 2
    /// or more that way.
    static func boxed(from input: ImageSize, to scaled: ImageSize) -> ImageSize? {
        func axis(_ input: Int, _ output: Int) -> Int {
            guard output > 0 else { return input }
            let b = Int((Double(input) / Double(output) / gap).rounded(.down))
            return b >= 2 ? (input + b - 1) / b : input
        }
        let size = ImageSize(width: axis(input.width, scaled.width), height: axis(input.height, scaled.height))
        return size == input ? nil : size
    }

    /// The output's size.
    public var output: ImageSize { crop?.size ?? scaled }

    /// Whether the sharpening runs after resampling `input`.
    func sharpens(from input: ImageSize) -> Bool {
        sharpen > 0 && Double(input.width) >= Self.sharpenFrom * Double(scaled.width) && Double(input.height) >= Self.sharpenFrom * Double(scaled.height)
    }

    /// Working memory of the kernel step from `input` (already boxed) to `scaled`, besides the
    /// two images: the weight tables of both axes, the combined float row, and the sharpening's
    /// rows when it runs.
    public func kernelScratchBytes(from input: ImageSize) -> Int {
        func taps(_ from: Int, _ to: Int) -> Int {
            guard to > 0 else { return 1 }
            return Int((kernel.support * max(Double(from) / Double(to), 1)).rounded(.up)) * 2 + 1
        }
        let tx = taps(input.width, scaled.width), ty = taps(input.height, scaled.height)
        let tables = (max(0, scaled.width) * tx + max(0, scaled.height) * ty) * 12
        let row = (max(0, input.width) + tx) * 16
        let sharpening = sharpens(from: input) ? BlurFilter.ringBytes(scaled, sigma: Self.sharpenSigma) : 0
        return tables + row + sharpening
    }
}

extension ReducingFilter {
    /// Carries the plan out on an image (see `finish`).
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

    /// The rest of the plan for an image the decoder already shrank to `plan.boxed` (or, had it
    /// nothing to shrink, the photo as it is): the box step where it is still to do, the kernel,
    /// the sharpening, the cut.
    public func finish(_ plan: ReductionPlan, from image: RGBAImage, isCancelled: () -> Bool) throws -> RGBAImage {
        if isCancelled() { throw FilterCancelled() }
        var scaled = image
        if image.width != plan.scaled.width || image.height != plan.scaled.height {
            if let boxed = plan.boxed, image.width >= boxed.width, image.height >= boxed.height,
                image.width != boxed.width || image.height != boxed.height
            {
                scaled = try Resample.area(image, to: boxed, filter: descriptor.name, isCancelled: isCancelled)
            }
            scaled = try Resample.kernel(
                scaled, to: plan.scaled, kernel: plan.kernel, linearLight: plan.linearLight, filter: descriptor.name, isCancelled: isCancelled)
            if plan.sharpens(from: ImageSize(width: image.width, height: image.height)) {
                try SharpenFilter.sharpen(scaled, amount: Float(plan.sharpen), sigma: ReductionPlan.sharpenSigma, isCancelled: isCancelled)
            }
        }
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
