/// What a filter allocates for one photo, known before it runs: the worker adds these up into the
/// photo's peak memory (see the worker's memory budget) before any pixel is allocated.
public struct FilterMemory: Sendable, Equatable {
    /// The size of the filter's output.
    public var output: ImageSize
    /// The filter writes its result over its input when the input is its own (not shared with
    /// the stage cache): no second image.
    public var inPlace: Bool
    /// Working memory besides the images (row rings, weight tables), in bytes.
    public var scratchBytes: Int

    public init(output: ImageSize, inPlace: Bool, scratchBytes: Int = 0) {
        self.output = output
        self.inPlace = inPlace
        self.scratchBytes = scratchBytes
    }

    /// Bytes of an RGBA8 image of `size` (saturating, never negative).
    public static func imageBytes(_ size: ImageSize) -> Int {
        let (pixels, overflow) = max(0, size.width).multipliedReportingOverflow(by: max(0, size.height))
        guard !overflow else { return Int.max / 4 }
        let (bytes, overflow2) = pixels.multipliedReportingOverflow(by: 4)
        return overflow2 ? Int.max / 4 : bytes
    }
}

extension FilterStage {
    /// Unknown filters (plugins) are assumed to make a new image of the input's size.
    public func memory(for input: ImageSize, parameters: FilterParameters) -> FilterMemory {
        FilterMemory(output: input, inPlace: false)
    }
}

extension PointFilter {
    public func memory(for input: ImageSize, parameters: FilterParameters) -> FilterMemory {
        FilterMemory(output: input, inPlace: true)
    }
}

extension ReducingFilter {
    /// A boxed image, a scaled image, and a cut of it when the plan cuts.
    public func memory(for input: ImageSize, parameters: FilterParameters) -> FilterMemory {
        let plan = plan(for: input, parameters: parameters)
        guard plan.scaled != input else { return FilterMemory(output: plan.output, inPlace: false) }
        let scaled = FilterMemory.imageBytes(plan.scaled)
        let cut = plan.crop.map { $0.size == plan.scaled ? 0 : FilterMemory.imageBytes($0.size) } ?? 0
        // The box step's image lives while the kernel reads it; its own rows and tables are
        // smaller than the kernel's.
        let boxed = plan.boxed ?? input
        let boxStep = boxed == input ? 0 : FilterMemory.imageBytes(boxed) + (input.width + 64) * 16
        // The scaled image is scratch once cut; without a cut it is the output itself.
        let scratch = (cut > 0 ? scaled : 0) + boxStep + plan.kernelScratchBytes(from: boxed)
        return FilterMemory(output: plan.output, inPlace: false, scratchBytes: scratch)
    }
}

extension BlurFilter {
    public func memory(for input: ImageSize, parameters: FilterParameters) -> FilterMemory {
        FilterMemory(output: input, inPlace: true, scratchBytes: Self.ringBytes(input, sigma: parameters["sigma"]))
    }

    /// The row ring, padded row and sums of `convolve`.
    static func ringBytes(_ size: ImageSize, sigma: Double) -> Int {
        let radius = Int((3 * sigma).rounded(.up)), taps = 2 * radius + 1
        let count = max(0, size.width) * 4
        return (min(taps, max(1, size.height)) * count + (size.width + 2 * radius) * 4 + count) * 4 + taps * 12
    }
}

extension SharpenFilter {
    public func memory(for input: ImageSize, parameters: FilterParameters) -> FilterMemory {
        FilterMemory(output: input, inPlace: true, scratchBytes: BlurFilter.ringBytes(input, sigma: parameters["sigma"]))
    }
}

extension FlipFilter {
    public func memory(for input: ImageSize, parameters: FilterParameters) -> FilterMemory {
        FilterMemory(output: input, inPlace: true, scratchBytes: max(input.width, input.height) * 4)
    }
}

extension FogFilter {
    public func memory(for input: ImageSize, parameters: FilterParameters) -> FilterMemory {
        FilterMemory(output: input, inPlace: true, scratchBytes: input.width * 16)
    }
}

extension VignetteFilter {
    public func memory(for input: ImageSize, parameters: FilterParameters) -> FilterMemory {
        FilterMemory(output: input, inPlace: true, scratchBytes: input.width * 16)
    }
}

extension RotateFilter {
    public func memory(for input: ImageSize, parameters: FilterParameters) -> FilterMemory {
        switch Int(parameters["degrees"]) {
        case 90, 270: return FilterMemory(output: ImageSize(width: input.height, height: input.width), inPlace: false)
        default: return FilterMemory(output: input, inPlace: true)
        }
    }
}

extension CropFilter {
    public func memory(for input: ImageSize, parameters: FilterParameters) -> FilterMemory {
        let x = Int(parameters["x"]), y = Int(parameters["y"])
        let width = min(Int(parameters["width"]), input.width - x), height = min(Int(parameters["height"]), input.height - y)
        return FilterMemory(output: ImageSize(width: max(0, width), height: max(0, height)), inPlace: false)
    }
}
