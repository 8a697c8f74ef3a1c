import CImageCodec
import Foundation
import PhotoClusterCore

/// Reads a PNG's chunks (skipping the image data): the size from IHDR, and the metadata in
/// iCCP (inflated, at most `ImageMetadata.maxProfileBytes`), eXIf and the XMP iTXt. Malformed
/// chunks end the walk quietly: the decoder reports what is wrong with the file. The walk stays
/// within `MetadataBudget`: inflated bytes, text chunks, and the caller's stop check.
enum PNGChunks {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let xmpKeyword = "XML:com.adobe.xmp"

    static let textChunks: Set<String> = ["tEXt", "zTXt", "iTXt"]

    static func header(of window: ByteWindow, budget: inout MetadataBudget) throws -> ImageHeader {
        var header = ImageHeader(format: .png, width: 0, height: 0, metadata: ImageMetadata())
        var offset = signature.count
        while let length = window.uint32(at: offset, bigEndian: true), length <= Int(Int32.max),
            let type = window.slice(offset + 4, 4), let body = window.slice(offset + 8, length) {
            offset += 12 + length  // length, type, body, CRC
            try budget.check()
            let name = String(decoding: type.bytes, as: UTF8.self)
            if name == "IEND" { break }
            if name != "IDAT" && name != "fdAT" { try budget.countChunk(.png) }
            if textChunks.contains(name) { try budget.countTextChunk() }
            switch name {
            case "IHDR":
                header.width = body.uint32(at: 0, bigEndian: true) ?? 0
                header.height = body.uint32(at: 4, bigEndian: true) ?? 0
            case "iCCP" where header.metadata.iccProfile == nil:
                header.metadata.iccProfile = profile(in: body, budget: &budget)
            case "eXIf" where header.metadata.exif == nil && body.count <= ImageMetadata.maxExifBytes:
                // Some writers keep JPEG's prefix.
                let skip = body.starts(with: JPEGSegments.exifPrefix) ? JPEGSegments.exifPrefix.count : 0
                header.metadata.exif = body.slice(skip, body.count - skip)?.data
            case "iTXt" where header.metadata.xmp == nil:
                header.metadata.xmp = xmp(in: body, budget: &budget)
            default:
                break
            }
        }
        header.metadata.orientation = header.metadata.exif.map(Exif.orientation(in:)) ?? .up
        return header
    }

    /// Name (1–79 bytes), NUL, compression method 0, zlib data.
    private static func profile(in body: ByteWindow, budget: inout MetadataBudget) -> Data? {
        guard let nul = (0..<min(body.count, 80)).first(where: { body.byte(at: $0) == 0 }), nul > 0,
            body.byte(at: nul + 1) == 0, let compressed = body.slice(nul + 2, body.count - nul - 2)
        else { return nil }
        guard let profile = budget.inflate(compressed, max: ImageMetadata.maxProfileBytes) else { return nil }
        return ICCProfile.isPlausible(profile) ? profile : nil
    }

    /// Keyword, NUL, compression flag and method, language tag, NUL, translated keyword, NUL, text.
    private static func xmp(in body: ByteWindow, budget: inout MetadataBudget) -> Data? {
        let keyword = Array(xmpKeyword.utf8)
        guard body.starts(with: keyword + [0]), let compressed = body.byte(at: keyword.count + 1) else { return nil }
        var offset = keyword.count + 3
        for _ in 0..<2 {  // language tag, translated keyword
            guard let nul = (offset..<body.count).first(where: { body.byte(at: $0) == 0 }) else { return nil }
            offset = nul + 1
        }
        guard let text = body.slice(offset, body.count - offset), text.count <= ImageMetadata.maxXMPBytes else { return nil }
        return compressed == 0 ? text.data : budget.inflate(text, max: ImageMetadata.maxXMPBytes)
    }
}
