import Foundation
import PhotoClusterCore

/// Reads a WebP's RIFF chunks: the size (from VP8X, VP8 or VP8L) and the ICCP, EXIF and XMP
/// chunks. Malformed chunks end the walk quietly: the decoder reports what is wrong.
enum WebPChunks {
    static func header(of window: ByteWindow, budget: inout MetadataBudget) throws -> ImageHeader {
        var header = ImageHeader(format: .webp, width: 0, height: 0, metadata: ImageMetadata())
        var offset = 12  // "RIFF", size, "WEBP"
        while let type = window.slice(offset, 4), let length = window.uint32(at: offset + 4, bigEndian: false),
            let body = window.slice(offset + 8, length) {
            offset += 8 + length + (length & 1)  // chunks are padded to an even size
            try budget.check()
            try budget.countChunk(.webp)
            switch String(decoding: type.bytes, as: UTF8.self) {
            case "VP8X":
                // Flags (4 bytes), then canvas width − 1 and height − 1, 24 bits each.
                if let w = uint24(body, 4), let h = uint24(body, 7) { (header.width, header.height) = (w + 1, h + 1) }
            case "VP8 " where header.width == 0:
                // Frame tag (3 bytes), start code 9D 01 2A, then 14-bit width and height.
                if body.starts(with: [0x9D, 0x01, 0x2A], at: 3), let w = body.uint16(at: 6, bigEndian: false), let h = body.uint16(at: 8, bigEndian: false) {
                    (header.width, header.height) = (w & 0x3FFF, h & 0x3FFF)
                }
            case "VP8L" where header.width == 0:
                // Signature 0x2F, then width − 1 and height − 1 in 14 bits each, little-endian.
                if body.byte(at: 0) == 0x2F, let bits = body.uint32(at: 1, bigEndian: false) {
                    (header.width, header.height) = ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
                }
            case "ICCP" where body.count <= ImageMetadata.maxProfileBytes:
                header.metadata.iccProfile = ICCProfile.isPlausible(body.data) ? body.data : nil
            case "EXIF" where body.count <= ImageMetadata.maxExifBytes:
                let skip = body.starts(with: JPEGSegments.exifPrefix) ? JPEGSegments.exifPrefix.count : 0
                header.metadata.exif = body.slice(skip, body.count - skip)?.data
            case "XMP " where body.count <= ImageMetadata.maxXMPBytes:
                header.metadata.xmp = body.data
            default:
                break
            }
        }
        header.metadata.orientation = header.metadata.exif.map(Exif.orientation(in:)) ?? .up
        return header
    }

    private static func uint24(_ window: ByteWindow, _ offset: Int) -> Int? {
        guard let low = window.uint16(at: offset, bigEndian: false), let high = window.byte(at: offset + 2) else { return nil }
        return Int(high) << 16 | low
    }
}
