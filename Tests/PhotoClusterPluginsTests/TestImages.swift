import PhotoClusterCore

/// Test images with varied, repeatable pixels (alpha included), and their bytes for comparing.
enum TestImages {
    static func varied(width: Int = 13, height: Int = 7, seed: UInt32 = 1) -> RGBAImage {
        let image = RGBAImage(width: width, height: height)!
        var state = seed
        for n in 0..<image.byteCount {
            state = state &* 1_664_525 &+ 1_013_904_223
            image.pixels[n] = UInt8(truncatingIfNeeded: state >> 24)
        }
        return image
    }

    static func bytes(_ image: RGBAImage) -> [UInt8] {
        Array(UnsafeBufferPointer(start: image.pixels, count: image.byteCount))
    }

    /// `image`'s pixels with `transform` applied to each (r, g, b, a) at (x, y).
    static func mapped(_ image: RGBAImage, _ transform: (_ x: Int, _ y: Int) -> [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for y in 0..<image.height {
            for x in 0..<image.width { out += transform(x, y) }
        }
        return out
    }
}
