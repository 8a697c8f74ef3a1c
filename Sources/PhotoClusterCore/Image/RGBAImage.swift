#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An 8-bit RGBA image: `width * height * 4` bytes, rows packed without padding.
///
/// The pixel memory comes from `malloc` (so the C codecs can hand over buffers they
/// allocated) and is freed when the image goes away.
///
/// Ownership: an image belongs to one pipeline stage at a time. A stage receives it from its
/// dependency, may mutate it in place, and passes it on; no two stages touch it at once, which
/// is why the class can be `@unchecked Sendable`.
public final class RGBAImage: @unchecked Sendable {
    public let width: Int
    public let height: Int
    public let pixels: UnsafeMutablePointer<UInt8>

    /// Bytes of pixel data.
    public var byteCount: Int { width * height * 4 }
    public var pixelCount: Int { width * height }
    public var size: ImageSize { ImageSize(width: width, height: height) }

    /// A new image with every byte zero. Returns nil when the size is not positive or the
    /// allocation fails.
    public init?(width: Int, height: Int) {
        guard width > 0, height > 0, width <= Int(Int32.max) / 4, height <= Int(Int32.max),
            let raw = calloc(width * height, 4)
        else { return nil }
        self.width = width
        self.height = height
        self.pixels = raw.assumingMemoryBound(to: UInt8.self)
    }

    /// Takes ownership of a `malloc`ed buffer of `width * height * 4` bytes; it is `free`d on deinit.
    public init(width: Int, height: Int, adoptingMallocedPixels pixels: UnsafeMutablePointer<UInt8>) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    deinit { free(pixels) }

    /// The four bytes of the pixel at (x, y).
    public subscript(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let p = pixels + (y * width + x) * 4
        return (p[0], p[1], p[2], p[3])
    }

    /// Every pixel has r = g = b.
    public var isGray: Bool {
        pixels.withMemoryRebound(to: UInt32.self, capacity: pixelCount) { words in
            for i in 0..<pixelCount {
                let p = UInt32(littleEndian: words[i])
                let r = p & 0xFF, g = (p >> 8) & 0xFF, b = (p >> 16) & 0xFF
                if r != g || g != b { return false }
            }
            return true
        }
    }

    /// A deep copy.
    public func copy() -> RGBAImage? {
        guard let clone = RGBAImage(width: width, height: height) else { return nil }
        clone.pixels.update(from: pixels, count: byteCount)
        return clone
    }
}
