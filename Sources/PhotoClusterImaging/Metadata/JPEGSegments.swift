import Foundation
import PhotoClusterCore

/// Reads a JPEG's header segments up to its first scan: the frame's size and the metadata in
/// APP1 (EXIF, XMP) and APP2 (ICC profile chunks). Malformed segments end the walk quietly: the
/// decoder reports what is wrong with the file, and metadata that cannot be read is left out.
enum JPEGSegments {
    static let exifPrefix: [UInt8] = Array("Exif".utf8) + [0, 0]
    static let xmpPrefix: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    static let iccPrefix: [UInt8] = Array("ICC_PROFILE".utf8) + [0]

    static func header(of window: ByteWindow, budget: inout MetadataBudget) throws -> ImageHeader {
        var header = ImageHeader(format: .jpeg, width: 0, height: 0, metadata: ImageMetadata())
        var profileChunks: [Int: ByteWindow] = [:]
        var profileChunkCount = 0
        var offset = 2  // after SOI
        walk: while let first = window.byte(at: offset), first == 0xFF {
            try budget.check()
            try budget.countChunk(.jpeg)
            var markerAt = offset + 1
            while window.byte(at: markerAt) == 0xFF { markerAt += 1 }  // fill bytes
            guard let marker = window.byte(at: markerAt) else { break }
            offset = markerAt + 1
            switch marker {
            case 0xD8, 0x01, 0xD0...0xD7: continue  // no length
            case 0xD9, 0xDA: break walk  // end of image, start of scan
            default: break
            }
            guard let length = window.uint16(at: offset, bigEndian: true), length >= 2,
                let payload = window.slice(offset + 2, length - 2)
            else { break }
            offset += length
            switch marker {
            case 0xE1 where payload.starts(with: exifPrefix) && header.metadata.exif == nil:
                header.metadata.exif = payload.slice(exifPrefix.count, payload.count - exifPrefix.count)?.data
            case 0xE1 where payload.starts(with: xmpPrefix) && header.metadata.xmp == nil:
                header.metadata.xmp = payload.slice(xmpPrefix.count, payload.count - xmpPrefix.count)?.data
            case 0xE2 where payload.starts(with: iccPrefix):
                // Sequence number (from 1) and chunk count, then the chunk.
                guard let sequence = payload.byte(at: iccPrefix.count).map(Int.init),
                    let count = payload.byte(at: iccPrefix.count + 1).map(Int.init),
                    let chunk = payload.slice(iccPrefix.count + 2, payload.count - iccPrefix.count - 2)
                else { continue }
                if profileChunkCount == 0 { profileChunkCount = count }
                // A chunk count of 0 is malformed (and `1...0` would trap): such chunks are left out.
                if count == profileChunkCount, sequence >= 1, sequence <= count { profileChunks[sequence] = chunk }
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                // Start of frame: precision, height, width.
                if let height = payload.uint16(at: 1, bigEndian: true), let width = payload.uint16(at: 3, bigEndian: true) {
                    header.width = width
                    header.height = height
                }
            default:
                break
            }
        }
        header.metadata.iccProfile = assembleProfile(profileChunks, count: profileChunkCount)
        header.metadata.orientation = header.metadata.exif.map(Exif.orientation(in:)) ?? .up
        if (header.metadata.exif?.count ?? 0) > ImageMetadata.maxExifBytes { header.metadata.exif = nil }
        if (header.metadata.xmp?.count ?? 0) > ImageMetadata.maxXMPBytes { header.metadata.xmp = nil }
        return header
    }

    /// The profile when every chunk of it is there, in order.
    private static func assembleProfile(_ chunks: [Int: ByteWindow], count: Int) -> Data? {
        guard count > 0, chunks.count == count else { return nil }
        var profile = Data()
        for sequence in 1...count {
            guard let chunk = chunks[sequence], profile.count + chunk.count <= ImageMetadata.maxProfileBytes else { return nil }
            profile.append(contentsOf: chunk.bytes)
        }
        return ICCProfile.isPlausible(profile) ? profile : nil
    }
}

/// Checks on an ICC profile's header, so a broken one is left out rather than written on.
public enum ICCProfile {
    /// The colour space signature of the profile's header ("RGB ", "GRAY", "CMYK", ...).
    public static func colourSpace(of profile: Data) -> String? {
        profile.withByteWindow { window in window.slice(16, 4).map { String(decoding: $0.bytes, as: UTF8.self) } }
    }

    /// The size field matches and the `acsp` signature is where the format puts it.
    static func isPlausible(_ profile: Data) -> Bool {
        profile.withByteWindow { window in
            window.count >= 128 && window.uint32(at: 0, bigEndian: true) == window.count
                && window.starts(with: Array("acsp".utf8), at: 36)
        }
    }
}
