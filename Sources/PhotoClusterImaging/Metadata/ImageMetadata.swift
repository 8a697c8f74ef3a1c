import Foundation
import PhotoClusterCore

/// What a photo's file says about its pixels besides the pixels: how to turn them, what colour
/// space they are in, and the camera's EXIF and XMP.
public struct ImageMetadata: Sendable, Equatable {
    /// From EXIF (JPEG APP1, PNG eXIf, WebP EXIF); `.up` when there is none.
    public var orientation: ImageOrientation = .up
    /// The embedded ICC profile (JPEG APP2 chunks put together, PNG iCCP inflated, WebP ICCP).
    public var iccProfile: Data?
    /// TIFF-structured EXIF, starting `II` or `MM` (JPEG's `Exif\0\0` prefix removed).
    public var exif: Data?
    /// The XMP packet.
    public var xmp: Data?

    public init(orientation: ImageOrientation = .up, iccProfile: Data? = nil, exif: Data? = nil, xmp: Data? = nil) {
        self.orientation = orientation
        self.iccProfile = iccProfile
        self.exif = exif
        self.xmp = xmp
    }

    /// Caps on what is kept of each piece: larger ones are left out (real ones are far smaller).
    static let maxProfileBytes = 4 << 20
    static let maxExifBytes = 1 << 20
    static let maxXMPBytes = 1 << 20
}

/// A photo's format, stored size and metadata, read from its header without decoding pixels.
public struct ImageHeader: Sendable, Equatable {
    public var format: ImageFormat
    /// As stored, before any orientation.
    public var width: Int
    public var height: Int
    public var metadata: ImageMetadata
    /// What the decoder allocates besides its RGBA output, at most, for the formats whose
    /// library says (HEIF planes, a TIFF strip, a GIF canvas); 0 for the others.
    public var decoderScratchBytes = 0

    public init(format: ImageFormat, width: Int, height: Int, metadata: ImageMetadata = ImageMetadata()) {
        self.format = format
        self.width = width
        self.height = height
        self.metadata = metadata
    }
}
