import CImageCodec
import Foundation
import PhotoClusterCore

/// How `ImageCodec.decode` decodes.
public struct DecodeOptions: Sendable, Hashable {
    /// Images with more pixels are refused before any pixel memory is allocated.
    public var maxPixels: Int
    /// JPEG: libjpeg-turbo's fast integer DCT and chroma upsampling by replication.
    public var fastDCT: Bool
    /// Shrink while decoding to exactly this size (as stored, before orientation), by area
    /// averaging as rows arrive and without a full-size image; JPEG is first decoded at the
    /// largest DCT scale that leaves at least twice this size. Ignored unless it is smaller than
    /// the photo on one side and not larger on the other (`DecodedImage.isReduced` says).
    public var reduceTo: ImageSize?
    /// Convert RGB and gray pixels to sRGB by the photo's ICC profile (Little CMS), when it has
    /// one that converts. CMYK photos are always converted (by their profile, else by formula).
    public var toSRGB: Bool
    /// Bytes the decoder may allocate for itself besides the output (nil: no limit): libjpeg's
    /// `max_memory_to_use`, libpng's chunk allocation limit. A decode that needs more fails as
    /// too large instead of growing past what the photo was granted.
    public var decoderMemoryLimit: Int?

    public init(
        maxPixels: Int = ImageCodec.defaultMaxPixels, fastDCT: Bool = false, reduceTo: ImageSize? = nil, toSRGB: Bool = false,
        decoderMemoryLimit: Int? = nil
    ) {
        self.maxPixels = maxPixels
        self.fastDCT = fastDCT
        self.reduceTo = reduceTo
        self.toSRGB = toSRGB
        self.decoderMemoryLimit = decoderMemoryLimit
    }
}

/// A decoded photo: its pixels as stored, and what its header says.
public struct DecodedImage: @unchecked Sendable {
    // @unchecked: RGBAImage is handed from stage to stage, one owner at a time (see RGBAImage).
    public let image: RGBAImage
    public let header: ImageHeader
    /// Stored with one colour channel (gray, or gray and alpha).
    public let isGray: Bool
    /// Shrunk while decoding to the options' `reduceTo`.
    public let isReduced: Bool
    /// The pixels are sRGB, no longer in the space of the photo's profile (CMYK photos, and
    /// converted ones).
    public let isConverted: Bool

    public var format: ImageFormat { header.format }
    public var metadata: ImageMetadata { header.metadata }
}

/// How `ImageCodec.encode` encodes, and the metadata it embeds.
public struct EncodeOptions: Sendable, Hashable {
    /// JPEG: 1...100, clamped.
    public var quality: Int
    /// JPEG: the fast integer DCT when `quality` is 90 or less (above that its rounding shows).
    public var fastDCT: Bool
    /// JPEG and PNG: one colour channel, taken from red; for images whose r = g = b everywhere.
    public var gray: Bool
    /// WebP: lossless, `quality` then setting how hard it tries.
    public var lossless: Bool
    /// AVIF: the AV1 encoder's speed, 0 (slowest, smallest) to 9 (fastest).
    public var speed: Int = EncodeOptions.defaultAVIFSpeed
    public static let defaultAVIFSpeed = 6
    /// JPEG: how colour is subsampled.
    public var chroma: ChromaSubsampling
    /// The ICC profile, EXIF and XMP to embed (orientation is not read from here: write the EXIF
    /// you mean).
    public var iccProfile: Data?
    public var exif: Data?
    public var xmp: Data?

    public init(
        quality: Int = 90, fastDCT: Bool = false, gray: Bool = false, lossless: Bool = false, chroma: ChromaSubsampling = .automatic,
        iccProfile: Data? = nil, exif: Data? = nil, xmp: Data? = nil
    ) {
        self.quality = quality
        self.fastDCT = fastDCT
        self.gray = gray
        self.lossless = lossless
        self.chroma = chroma
        self.iccProfile = iccProfile
        self.exif = exif
        self.xmp = xmp
    }

    /// The C options, valid inside `body` only (the blobs point into this value's data).
    func withCOptions<T>(_ body: (inout ic_encode_options) throws -> T) rethrows -> T {
        try Self.withBlob(iccProfile) { icc in
            try Self.withBlob(exif) { exif in
                try Self.withBlob(xmp) { xmp in
                    var c = ic_encode_options()
                    c.quality = Int32(clamping: quality)
                    c.chroma = chroma.rawValue
                    c.fast_dct = fastDCT ? 1 : 0
                    c.gray = gray ? 1 : 0
                    c.lossless = lossless ? 1 : 0
                    c.icc = icc
                    c.exif = exif
                    c.xmp = xmp
                    return try body(&c)
                }
            }
        }
    }

    static func withBlob<T>(_ data: Data?, _ body: (ic_blob) throws -> T) rethrows -> T {
        guard let data, !data.isEmpty else { return try body(ic_blob(bytes: nil, size: 0)) }
        return try data.withUnsafeBytes { raw in
            try body(ic_blob(bytes: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), size: raw.count))
        }
    }
}

/// JPEG chroma subsampling. Halving the colour resolution (4:2:0) is invisible in photos at
/// moderate quality and makes smaller files, faster; graphics, text and high qualities show it as
/// coloured fringes, so they want 4:4:4.
public enum ChromaSubsampling: Int32, Sendable, Hashable, CaseIterable {
    /// 4:4:4 above quality 90, 4:2:0 otherwise (the default quality, 90, keeps 4:2:0).
    case automatic = 0
    case s420 = 1
    case s444 = 2
    /// Chroma halved across only.
    case s422 = 3
}
