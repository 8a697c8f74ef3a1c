import Foundation
import PhotoClusterImaging

/// Where a photo's pixels came from, for the encoder at the end of the chain: the input's format
/// and metadata, whether it was stored gray, and whether its orientation was applied.
public struct PixelOrigin: Sendable {
    public var format: ImageFormat
    public var metadata: ImageMetadata
    public var isGray: Bool
    public var orientationApplied: Bool

    public init(format: ImageFormat, metadata: ImageMetadata = ImageMetadata(), isGray: Bool = false, orientationApplied: Bool = false) {
        self.format = format
        self.metadata = metadata
        self.isGray = isGray
        self.orientationApplied = orientationApplied
    }
}

/// How a photo's pixels were made from its bytes; photos decoded differently are cached apart.
public struct PixelVariant: Hashable, Sendable {
    /// Decoded with the fast DCT, which gives slightly different pixels.
    public var fastDCT: Bool
    /// Turned upright by the EXIF orientation (not with `--no-auto-orient`).
    public var upright: Bool

    public init(fastDCT: Bool = false, upright: Bool = true) {
        self.fastDCT = fastDCT
        self.upright = upright
    }
}
