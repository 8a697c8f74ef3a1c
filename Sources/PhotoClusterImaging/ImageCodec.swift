import CImageCodec
import Foundation
import PhotoClusterCore

/// JPEG and PNG decoding to, and encoding from, 8-bit RGBA, backed by libjpeg-turbo and libpng.
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
        default: return nil
        }
    }

    /// Decodes a JPEG or PNG to RGBA8. The header's size is checked against `maxPixels`
    /// before any pixel memory is allocated.
    public static func decode(
        _ data: Data, maxPixels: Int = defaultMaxPixels
    ) throws -> (image: RGBAImage, format: ImageFormat) {
        guard !data.isEmpty else { throw ImageCodecError(kind: .empty, message: "image data is empty") }
        guard let format = sniff(data) else {
            let start = data.prefix(4).map { String(format: "%02X", $0) }.joined(separator: " ")
            throw ImageCodecError(kind: .unsupportedFormat, message: "not a JPEG or PNG (starts with \(start))")
        }
        let cap = UInt64(max(0, maxPixels))
        var decoded = ic_image()
        try CodecCall.check { message, messageSize in
            data.withUnsafeBytes { raw in
                let bytes = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                switch format {
                case .jpeg: return ic_decode_jpeg(bytes, raw.count, cap, &decoded, message, messageSize)
                case .png: return ic_decode_png(bytes, raw.count, cap, &decoded, message, messageSize)
                }
            }
        }
        let image = RGBAImage(
            width: Int(decoded.width), height: Int(decoded.height), adoptingMallocedPixels: decoded.pixels)
        return (image, format)
    }

    /// Encodes RGBA8 pixels. JPEG drops alpha, subsamples chroma 4:2:0 and clamps `quality`
    /// to 1...100; PNG is lossless (RGB when fully opaque) and ignores `quality`.
    public static func encode(_ image: RGBAImage, as format: ImageFormat, quality: Int = 90) throws -> Data {
        guard image.width > 0, image.height > 0, image.width <= UInt32.max, image.height <= UInt32.max else {
            throw ImageCodecError(
                kind: .encodeFailed, message: "cannot encode a \(image.width)x\(image.height) image")
        }
        let width = UInt32(image.width), height = UInt32(image.height)
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        try CodecCall.check { message, messageSize in
            switch format {
            case .jpeg:
                return ic_encode_jpeg(
                    image.pixels, width, height, Int32(clamping: quality), &output, &outputSize, message, messageSize)
            case .png:
                return ic_encode_png(image.pixels, width, height, &output, &outputSize, message, messageSize)
            }
        }
        guard let output else {
            throw ImageCodecError(kind: .encodeFailed, message: "encoder returned no data")
        }
        return Data(bytesNoCopy: output, count: outputSize, deallocator: .free)
    }
}
