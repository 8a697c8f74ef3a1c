/// Mirrors the image in place: left↔right by default, pixel (x, y) ← (W − 1 − x, y); top↔bottom
/// when `vertical` is 1, pixel (x, y) ← (x, H − 1 − y).
public struct FlipFilter: FilterStage {
    public init() {}

    public var descriptor: FilterDescriptor {
        FilterDescriptor(
            name: "flip", version: "1", summary: "mirror left to right, or top to bottom",
            parameters: [FilterParameter(key: "vertical", kind: .bool, range: 0...1, defaultValue: 0, summary: "1 mirrors top to bottom instead of left to right")]
        )
    }

    public func apply(to image: RGBAImage, parameters: FilterParameters, isCancelled: () -> Bool) throws -> RGBAImage {
        if parameters["vertical"] != 0 {
            try Self.flipRows(image, isCancelled: isCancelled)
        } else {
            try Self.mirrorRows(image, isCancelled: isCancelled)
        }
        return image
    }

    static func mirrorRows(_ image: RGBAImage, isCancelled: () -> Bool) throws {
        let width = image.width
        try image.pixels.withMemoryRebound(to: UInt32.self, capacity: image.pixelCount) { pixels in
            try RowBands.forEach(in: image, isCancelled: isCancelled) { rows in
                for y in rows {
                    let row = pixels + y * width
                    for x in 0..<width / 2 {
                        let kept = row[x]
                        row[x] = row[width - 1 - x]
                        row[width - 1 - x] = kept
                    }
                }
            }
        }
    }

    /// Swaps row y with row H − 1 − y through one spare row.
    static func flipRows(_ image: RGBAImage, isCancelled: () -> Bool) throws {
        let count = image.width * 4, height = image.height
        let spare = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        defer { spare.deallocate() }
        let rowsPerCheck = RowBands.bandHeight(width: image.width)
        var start = 0
        repeat {  // at least once, so a one-row image still checks for cancellation
            if isCancelled() { throw FilterCancelled() }
            let end = min(height / 2, start + rowsPerCheck)
            for y in start..<end {
                let top = image.pixels + y * count, bottom = image.pixels + (height - 1 - y) * count
                spare.update(from: top, count: count)
                top.update(from: bottom, count: count)
                bottom.update(from: spare, count: count)
            }
            start = end
        } while start < height / 2
    }
}
