import Foundation
import PhotoClusterImaging

/// Where a photo's pixels came from, for the encoder at the end of the chain: the input's format
/// and metadata, whether it was stored gray, and whether its orientation was applied.
public struct PixelOrigin: Sendable {
    public var format: ImageFormat
    public var metadata: ImageMetadata
    public var isGray: Bool
    public var orientationApplied: Bool
    /// The pixels were converted to sRGB: the input's profile no longer describes them.
    public var colourConverted: Bool

    public init(
        format: ImageFormat, metadata: ImageMetadata = ImageMetadata(), isGray: Bool = false, orientationApplied: Bool = false,
        colourConverted: Bool = false
    ) {
        self.format = format
        self.metadata = metadata
        self.isGray = isGray
        self.orientationApplied = orientationApplied
        self.colourConverted = colourConverted
    }
}

/// How a photo's pixels were made from its bytes; photos decoded differently are cached apart.
public struct PixelVariant: Hashable, Sendable {
    /// Decoded with the fast DCT, which gives slightly different pixels.
    public var fastDCT: Bool
    /// Turned upright by the EXIF orientation (not with `--no-auto-orient`).
    public var upright: Bool
    /// The chain's first filter was applied while decoding, shrinking as rows arrived: its
    /// result is a stage result of its own, never mixed with a whole decode's.
    public var reducedOnLoad: Bool
    /// Converted to sRGB by the photo's profile (`--colour srgb`).
    public var srgb: Bool

    public init(fastDCT: Bool = false, upright: Bool = true, reducedOnLoad: Bool = false, srgb: Bool = false) {
        self.fastDCT = fastDCT
        self.upright = upright
        self.reducedOnLoad = reducedOnLoad
        self.srgb = srgb
    }
}
