import CImageCodec
import Foundation
import PhotoClusterCore

/// Headers of the formats whose containers only their own library parses (HEIF and AVIF by
/// libheif, TIFF by libtiff, GIF by giflib, JPEG XL by libjxl), read without decoding pixels.
enum ContainerHeaders {
    /// The header, or an error naming the format and the part that failed.
    static func header(of data: Data, format: ImageFormat) throws -> ImageHeader {
        let code: ic_format
        switch format {
        case .heif: code = IC_FORMAT_HEIF
        case .avif: code = IC_FORMAT_AVIF
        case .tiff: code = IC_FORMAT_TIFF
        case .gif: code = IC_FORMAT_GIF
        case .jxl: code = IC_FORMAT_JXL
        default: preconditionFailure("\(format) headers are read in Swift")
        }
        var c = ic_header()
        defer { ic_header_free(&c) }
        try CodecCall.check { message, messageSize in
            data.withUnsafeBytes { raw in
                ic_read_header(code, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &c, message, messageSize)
            }
        }
        func blob(_ bytes: UnsafeMutablePointer<UInt8>?, _ count: Int) -> Data? {
            guard let bytes, count > 0 else { return nil }
            return Data(bytes: bytes, count: count)
        }
        let width = Int(c.width), height = Int(c.height)
        var metadata = ImageMetadata(
            orientation: ImageOrientation(rawValue: Int(c.orientation)) ?? .up, iccProfile: blob(c.icc, c.icc_size),
            exif: blob(c.exif, c.exif_size), xmp: blob(c.xmp, c.xmp_size))
        if format == .tiff, metadata.exif == nil {
            // Its EXIF lies in its own directories: carried as the other formats carry theirs.
            metadata.exif = TIFFExif.exif(ofTIFF: data)
        }
        if format == .heif || format == .avif || format == .jxl {
            // libheif turns the pixels by the item's irot/imir, libjxl by the codestream's
            // orientation: the EXIF orientation, which phones and cjxl write too, must never turn
            // them again (in this worker or in a viewer of a `keep` output).
            metadata.orientation = .up
            metadata.exif = metadata.exif.map { Exif.resettingOrientation(of: $0, width: width, height: height) ?? $0 }
            metadata.xmp = metadata.xmp.map(XMP.resettingOrientation(of:))
        }
        var header = ImageHeader(format: format, width: width, height: height, metadata: metadata)
        header.decoderScratchBytes = Int(clamping: c.scratch_bytes)
        return header
    }
}
