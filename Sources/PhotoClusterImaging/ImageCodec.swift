import CImageCodec
import Foundation
import PhotoClusterCore

/// Decoding JPEG, PNG, WebP, HEIF, AVIF, TIFF, GIF and JPEG XL to, and encoding JPEG, PNG, WebP
/// and AVIF from, 8-bit RGBA, backed by libjpeg-turbo, libpng, libwebp, libheif, libtiff, giflib
/// and libjxl.
public enum ImageCodec {
    /// The default cap on decoded pixels (100 megapixels, 400 MB of RGBA).
    public static let defaultMaxPixels = 100_000_000

    /// The format named by the data's magic bytes, or nil.
    public static func sniff(_ data: Data) -> ImageFormat? {
        let format = data.withUnsafeBytes { raw in
            ic_sniff(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count)
        }
        switch format {
        case IC_FORMAT_JPEG: return .jpeg
        case IC_FORMAT_PNG: return .png
        case IC_FORMAT_WEBP: return .webp
        case IC_FORMAT_HEIF: return .heif
        case IC_FORMAT_AVIF: return .avif
        case IC_FORMAT_TIFF: return .tiff
        case IC_FORMAT_GIF: return .gif
        case IC_FORMAT_JXL: return .jxl
        default: return nil
        }
    }

    /// The format, stored size and metadata (orientation, ICC profile, EXIF, XMP), read from the
    /// header without decoding pixels. Metadata that cannot be read is left out. Throws for a
    /// format that is not known, for a file over the metadata caps (`MetadataBudget`), and
    /// `DecodeStopped` when `shouldStop`, asked between chunks, says so.
    public static func inspect(_ data: Data, shouldStop: (() -> Bool)? = nil) throws -> ImageHeader {
        let format = try knownFormat(of: data)
        switch format {
        case .heif, .avif, .tiff, .gif, .jxl: return try ContainerHeaders.header(of: data, format: format)
        case .jpeg, .png, .webp: break
        }
        var budget = MetadataBudget(shouldStop: shouldStop)
        return try data.withByteWindow { window in
            switch format {
            case .jpeg: return try JPEGSegments.header(of: window, budget: &budget)
            case .png: return try PNGChunks.header(of: window, budget: &budget)
            default: return try WebPChunks.header(of: window, budget: &budget)
            }
        }
    }

    /// Decodes any format `sniff` names to RGBA8, as stored (no EXIF or TIFF orientation applied; a
    /// HEIF's own transformations are), with its header.
    /// The header's size is checked against `options.maxPixels` before any pixel memory is
    /// allocated. A JPEG decode asks `shouldStop` between scans and bands of rows, TIFF between
    /// bands of strips or tiles, GIF every 64 rows, JPEG XL between libjxl's events and chunks of the file, HEIF and AVIF before and after libheif's
    /// decode, and when it says so ends by throwing `DecodeStopped` (a PNG or WebP decode runs to
    /// its end: its time is linear in its capped size).
    /// `header`: the data's header when the caller has read it already (`inspect`), so it is not
    /// read twice.
    public static func decode(_ data: Data, header: ImageHeader? = nil, options: DecodeOptions, shouldStop: (() -> Bool)? = nil) throws -> DecodedImage {
        let header = try header ?? inspect(data)
        var decoded = ic_image()
        var c = ic_decode_options()
        c.max_pixels = UInt64(max(0, options.maxPixels))
        c.fast_dct = options.fastDCT ? 1 : 0
        c.decoder_memory_limit = UInt64(max(0, options.decoderMemoryLimit ?? 0))
        if let size = options.reduceTo, size.width > 0, size.height > 0, size.width <= UInt32.max, size.height <= UInt32.max {
            c.reduce_width = UInt32(size.width)
            c.reduce_height = UInt32(size.height)
        }
        var stopped = false
        let asksToStop = shouldStop != nil
        try withoutActuallyEscaping(shouldStop ?? { false }) { shouldStop in
            var check = DecodeCheck(shouldStop: shouldStop)
            try withUnsafeMutablePointer(to: &check) { context in
                if asksToStop {
                    c.should_stop = DecodeCheck.callback
                    c.stop_context = UnsafeMutableRawPointer(context)
                }
                try CodecCall.check { message, messageSize in
                    let status = EncodeOptions.withBlob(header.metadata.iccProfile) { icc in
                        c.icc = icc
                        return data.withUnsafeBytes { raw in
                            let bytes = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                            switch header.format {
                            case .jpeg: return ic_decode_jpeg(bytes, raw.count, &c, &decoded, message, messageSize)
                            case .png: return ic_decode_png(bytes, raw.count, &c, &decoded, message, messageSize)
                            case .webp: return ic_decode_webp(bytes, raw.count, &c, &decoded, message, messageSize)
                            case .heif, .avif: return ic_decode_heif(bytes, raw.count, &c, &decoded, message, messageSize)
                            case .tiff: return ic_decode_tiff(bytes, raw.count, &c, &decoded, message, messageSize)
                            case .gif: return ic_decode_gif(bytes, raw.count, &c, &decoded, message, messageSize)
                            case .jxl: return ic_decode_jxl(bytes, raw.count, &c, &decoded, message, messageSize)
                            }
                        }
                    }
                    stopped = status == IC_STOPPED
                    return stopped ? IC_OK : status
                }
            }
        }
        if stopped { throw DecodeStopped() }
        let image = RGBAImage(width: Int(decoded.width), height: Int(decoded.height), adoptingMallocedPixels: decoded.pixels)
        var converted = decoded.cmyk != 0
        if options.toSRGB, !converted, let profile = header.metadata.iccProfile {
            // A profile Little CMS cannot use is taken for sRGB, as viewers take a photo without one.
            converted = EncodeOptions.withBlob(profile) { icc in
                ic_convert_to_srgb(image.pixels, image.pixelCount, icc, nil, 0) == IC_OK
            }
        }
        return DecodedImage(image: image, header: header, isGray: decoded.gray != 0, isReduced: decoded.reduced != 0, isConverted: converted)
    }

    /// Decodes any format `sniff` names to RGBA8 as stored. `fastDCT` decodes JPEG with libjpeg-turbo's fast
    /// integer DCT and chroma upsampling by replication: faster, a little less accurate.
    public static func decode(
        _ data: Data, maxPixels: Int = defaultMaxPixels, fastDCT: Bool = false
    ) throws -> (image: RGBAImage, format: ImageFormat) {
        let decoded = try decode(data, options: DecodeOptions(maxPixels: maxPixels, fastDCT: fastDCT))
        return (decoded.image, decoded.format)
    }

    private static func knownFormat(of data: Data) throws -> ImageFormat {
        guard !data.isEmpty else { throw ImageCodecError(kind: .empty, message: "image data is empty") }
        guard let format = sniff(data) else {
            // Nothing of the bytes is quoted: they may be another service's answer, and the
            // message reaches the client that named the URL.
            throw ImageCodecError(kind: .unsupportedFormat, message: "not an image (not a JPEG, PNG, WebP, HEIC, AVIF, TIFF, GIF or JPEG XL)")
        }
        return format
    }

    /// Encodes RGBA8 pixels. JPEG drops alpha, subsamples chroma 4:2:0 and clamps `quality`
    /// to 1...100; PNG is lossless (RGB when fully opaque) and ignores `quality`; WebP is lossy at
    /// `quality` with alpha kept.
    public static func encode(
        _ image: RGBAImage, as format: ImageFormat, quality: Int = 90, fastDCT: Bool = false,
        transform: PixelTransform? = nil, shouldStop: (() -> Bool)? = nil
    ) throws -> Data {
        try encode(image, as: format, options: EncodeOptions(quality: quality, fastDCT: fastDCT), transform: transform, shouldStop: shouldStop)
    }

    /// Encodes RGBA8 pixels with `options` (quality, gray, the metadata to embed).
    ///
    /// `transform` (colour only, alpha kept) is applied to each band of rows just before it is
    /// compressed, so the image itself is left as it was. `shouldStop` is asked before each band;
    /// when it returns true the encode ends by throwing `EncodeStopped`.
    public static func encode(
        _ image: RGBAImage, as format: ImageFormat, options: EncodeOptions,
        transform: PixelTransform? = nil, shouldStop: (() -> Bool)? = nil
    ) throws -> Data {
        guard format.isWritable else {
            throw ImageCodecError(kind: .encodeFailed, message: "\(format.rawValue.uppercased()) is read, never written")
        }
        guard image.width > 0, image.height > 0, image.width <= UInt32.max, image.height <= UInt32.max else {
            throw ImageCodecError(
                kind: .encodeFailed, message: "cannot encode a \(image.width)x\(image.height) image")
        }
        let width = UInt32(image.width), height = UInt32(image.height)
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        let stopped = try withoutActuallyEscaping(shouldStop ?? { false }) { shouldStop in
            var bands = EncodeBands(transform: transform, shouldStop: shouldStop)
            return try withUnsafeMutablePointer(to: &bands) { context in
                var hooks = ic_encode_hooks(band: EncodeBands.callback, context: UnsafeMutableRawPointer(context), transforms: transform == nil ? 0 : 1)
                var bandSaidStop = false
                try options.withCOptions { c in
                    try CodecCall.check { message, messageSize in
                        let status: ic_status
                        switch format {
                        case .jpeg:
                            status = ic_encode_jpeg(image.pixels, width, height, &c, &hooks, &output, &outputSize, message, messageSize)
                        case .png:
                            status = ic_encode_png(image.pixels, width, height, &c, &hooks, &output, &outputSize, message, messageSize)
                        case .webp:
                            status = ic_encode_webp(image.pixels, width, height, &c, &hooks, &output, &outputSize, message, messageSize)
                        case .avif:
                            status = ic_encode_avif(
                                image.pixels, width, height, &c, Int32(clamping: options.speed), &hooks, &output, &outputSize, message, messageSize)
                        case .heif, .tiff, .gif, .jxl:
                            status = IC_ENCODE_FAILED  // refused above
                        }
                        bandSaidStop = status == IC_STOPPED
                        return bandSaidStop ? IC_OK : status
                    }
                }
                return bandSaidStop
            }
        }
        if stopped { throw EncodeStopped() }
        guard let output else {
            throw ImageCodecError(kind: .encodeFailed, message: "encoder returned no data")
        }
        return Data(bytesNoCopy: output, count: outputSize, deallocator: .free)
    }
}

/// Thrown by `ImageCodec.encode` when its `shouldStop` returned true.
public struct EncodeStopped: Error, Sendable {}

/// Thrown by `ImageCodec.decode` when its `shouldStop` returned true.
public struct DecodeStopped: Error, Sendable {}

/// What the C decoder's stop check reaches through its context pointer.
private struct DecodeCheck {
    let shouldStop: () -> Bool

    static let callback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
        context!.assumingMemoryBound(to: DecodeCheck.self).pointee.shouldStop() ? 1 : 0
    }
}

/// What the C encoder's band callback reaches through its context pointer.
private struct EncodeBands {
    let transform: PixelTransform?
    let shouldStop: () -> Bool

    static let callback: ic_band_callback = { context, source, destination, rows, width in
        let bands = context!.assumingMemoryBound(to: EncodeBands.self).pointee
        if bands.shouldStop() { return 1 }
        if let transform = bands.transform, let source, let destination {
            transform(source, destination, Int(rows) * Int(width))
        }
        return 0
    }
}
