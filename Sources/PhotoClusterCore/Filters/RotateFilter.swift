/// Rotates clockwise by 0, 90, 180 or 270 degrees; any other value in the declared range is refused
/// with `FilterFailure`. 0 returns the image as it is and 180 works in place; 90 and 270 return a
/// new H×W image where, for 90, output (x′, y′) = input (y′, H − 1 − x′) and, for 270,
/// output (x′, y′) = input (W − 1 − y′, x′).
public struct RotateFilter: FilterStage {
    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "rotate", version: "1", summary: "quarter turns clockwise",
            parameters: [FilterParameter(key: "degrees", kind: .int, range: 0...270, defaultValue: 90, summary: "0, 90, 180 or 270, clockwise")]
        )
    }

    public func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        let degrees = Int(parameters["degrees"])
        switch degrees {
        case 0:
            if isCancelled() { throw FilterCancelled() }
            return image
        case 180:
            try Self.halfTurn(image, isCancelled: isCancelled)
            return image
        case 90, 270:
            return try Self.quarterTurn(image, clockwise: degrees == 90, isCancelled: isCancelled)
        default:
            throw FilterFailure(filter: "rotate", reason: "degrees=\(degrees) is not one of 0, 90, 180, 270")
        }
    }

    /// A quarter turn only reads its input (no copy of it first); the others work in place on a copy.
    public func apply(toCopyOf image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        switch Int(parameters["degrees"]) {
        case 90, 270: return try apply(to: image, parameters: parameters, isCancelled: isCancelled)
        default:
            guard let copy = FilterPixels.copy(of: image) else {
                throw FilterFailure(filter: "rotate", reason: "out of memory copying \(image.width)x\(image.height) pixels")
            }
            return try apply(to: copy, parameters: parameters, isCancelled: isCancelled)
        }
    }

    /// Swaps pixel (x, y) with (W − 1 − x, H − 1 − y), a pair of rows at a time.
    static func halfTurn(_ image: RGBAImage, isCancelled: () -> Bool) throws {
        let width = image.width, height = image.height
        let rowsPerCheck = RowBands.bandHeight(width: width)
        try image.pixels.withMemoryRebound(to: UInt32.self, capacity: image.pixelCount) { pixels in
            var start = 0
            while start < (height + 1) / 2 {
                if isCancelled() { throw FilterCancelled() }
                let end = min((height + 1) / 2, start + rowsPerCheck)
                for y in start..<end {
                    let top = pixels + y * width, bottom = pixels + (height - 1 - y) * width
                    // The middle row of an odd height only reverses within itself.
                    for x in 0..<(y == height - 1 - y ? width / 2 : width) {
                        let kept = top[x]
                        top[x] = bottom[width - 1 - x]
                        bottom[width - 1 - x] = kept
                    }
                }
                start = end
            }
        }
    }

    static func quarterTurn(_ image: RGBAImage, clockwise: Bool, isCancelled: () -> Bool) throws -> RGBAImage {
        let width = image.height, height = image.width  // of the output
        guard let output = RGBAImage(width: width, height: height) else {
            throw FilterFailure(filter: "rotate", reason: "cannot allocate a \(width)x\(height) image")
        }
        try image.pixels.withMemoryRebound(to: UInt32.self, capacity: image.pixelCount) { source in
            try output.pixels.withMemoryRebound(to: UInt32.self, capacity: output.pixelCount) { target in
                try RowBands.forEach(in: output, isCancelled: isCancelled) { rows in
                    // Columns in blocks of 64, so the input rows a block reads stay in cache
                    // while the band's output rows walk across them.
                    var left = 0
                    while left < width {
                        let right = min(width, left + 64)
                        for y in rows {
                            let row = target + y * width
                            if clockwise {
                                for x in left..<right { row[x] = source[(image.height - 1 - x) * image.width + y] }
                            } else {
                                for x in left..<right { row[x] = source[x * image.width + image.width - 1 - y] }
                            }
                        }
                        left = right
                    }
                }
            }
        }
        return output
    }
}
