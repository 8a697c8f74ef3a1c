/// How a camera says its stored pixels are to be turned for display: the EXIF orientation tag
/// (0x0112), values 1 to 8. Value 1 is upright; 6 is what phones write for a portrait shot
/// (stored on its side, to be turned a quarter clockwise).
public enum ImageOrientation: Int, Sendable, CaseIterable {
    case up = 1
    case mirrored = 2        // flipped left to right
    case down = 3            // half a turn
    case downMirrored = 4    // flipped top to bottom
    case leftMirrored = 5    // transposed (mirrored along the top-left to bottom-right diagonal)
    case right = 6           // a quarter turn clockwise
    case rightMirrored = 7   // transversed (mirrored along the other diagonal)
    case left = 8            // a quarter turn counterclockwise

    /// The tag's value; anything outside 1...8 counts as upright, as viewers treat it.
    public init(exifValue: Int) {
        self = ImageOrientation(rawValue: exifValue) ?? .up
    }

    /// Display width and height swap with the stored ones (values 5 to 8).
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The upright size of a stored width × height.
    public func uprightSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsAxes ? (height, width) : (width, height)
    }

    /// Where upright pixel (x, y) of an upright W′ × H′ image lies in the stored W × H one, as
    /// `stored = origin + x·stepX + y·stepY` in pixels (all eight cases are affine).
    func storedIndexSteps(width: Int, height: Int) -> (origin: Int, stepX: Int, stepY: Int) {
        let w = width, h = height
        switch self {
        case .up: return (0, 1, w)
        case .mirrored: return (w - 1, -1, w)
        case .down: return ((h - 1) * w + w - 1, -1, -w)
        case .downMirrored: return ((h - 1) * w, 1, -w)
        case .leftMirrored: return (0, w, 1)                           // (x, y) ← (y, x)
        case .right: return ((h - 1) * w, -w, 1)                       // (x, y) ← (y, H − 1 − x)
        case .rightMirrored: return ((h - 1) * w + w - 1, -w, -1)      // (x, y) ← (W − 1 − y, H − 1 − x)
        case .left: return (w - 1, w, -1)                              // (x, y) ← (W − 1 − y, x)
        }
    }
}

extension RGBAImage {
    /// The image as it is to be shown: turned and mirrored as `orientation` says, in one pass into
    /// a new image (the same image for `.up`). Nil when the new image cannot be allocated.
    public func upright(_ orientation: ImageOrientation) -> RGBAImage? {
        guard orientation != .up else { return self }
        let size = orientation.uprightSize(width: width, height: height)
        guard let output = RGBAImage(width: size.width, height: size.height) else { return nil }
        let (origin, stepX, stepY) = orientation.storedIndexSteps(width: width, height: height)
        pixels.withMemoryRebound(to: UInt32.self, capacity: pixelCount) { source in
            output.pixels.withMemoryRebound(to: UInt32.self, capacity: output.pixelCount) { target in
                // Blocks of 64 × 64: when a turn makes the reads walk down columns, the rows they
                // touch stay in cache while the block's output rows are written.
                let block = 64
                var top = 0
                while top < size.height {
                    let bottom = min(size.height, top + block)
                    var left = 0
                    while left < size.width {
                        let right = min(size.width, left + block)
                        for y in top..<bottom {
                            let row = target + y * size.width
                            var index = origin + y * stepY + left * stepX
                            for x in left..<right {
                                row[x] = source[index]
                                index += stepX
                            }
                        }
                        left = right
                    }
                    top = bottom
                }
            }
        }
        return output
    }
}
