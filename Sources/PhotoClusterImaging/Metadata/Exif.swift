import Foundation
import PhotoClusterCore

/// The few EXIF fields PhotoCluster reads and writes, in TIFF-structured EXIF (`II*\0` or
/// `MM\0*`, then the offset of IFD0). Every offset comes from the network, so every read is
/// bounds-checked and the walks are bounded.
public enum Exif {
    static let orientationTag = 0x0112
    static let artistTag = 0x013B
    static let copyrightTag = 0x8298
    static let exifIFDTag = 0x8769
    static let pixelXDimensionTag = 0xA002
    static let pixelYDimensionTag = 0xA003
    /// More entries than any real IFD has; a corrupt count stops here.
    static let maxEntries = 1024

    /// One IFD entry: where it is in the TIFF bytes, its tag, type and count.
    struct Entry {
        let offset: Int
        let tag: Int
        let type: Int
        let count: Int
        /// Where the value is: inside the entry when it fits in 4 bytes, else at the offset it holds.
        func valueOffset(in window: ByteWindow, bigEndian: Bool) -> Int? {
            let size = [1: 1, 2: 1, 3: 2, 4: 4, 7: 1][type].map { $0 * count } ?? Int.max
            return size <= 4 ? offset + 8 : window.uint32(at: offset + 8, bigEndian: bigEndian)
        }
    }

    /// The byte order, or nil when the bytes are not TIFF.
    static func isBigEndian(_ window: ByteWindow) -> Bool? {
        if window.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return true }
        if window.starts(with: [0x49, 0x49, 0x2A, 0x00]) { return false }
        return nil
    }

    /// The entries of the IFD at `offset`.
    static func entries(of window: ByteWindow, ifdAt offset: Int, bigEndian: Bool) -> [Entry] {
        guard let count = window.uint16(at: offset, bigEndian: bigEndian), count <= maxEntries else { return [] }
        return (0..<count).compactMap { index in
            let at = offset + 2 + index * 12
            guard let tag = window.uint16(at: at, bigEndian: bigEndian), let type = window.uint16(at: at + 2, bigEndian: bigEndian),
                let valueCount = window.uint32(at: at + 4, bigEndian: bigEndian), window.slice(at, 12) != nil
            else { return nil }
            return Entry(offset: at, tag: tag, type: type, count: valueCount)
        }
    }

    static func ifd0(of window: ByteWindow, bigEndian: Bool) -> [Entry] {
        guard let offset = window.uint32(at: 4, bigEndian: bigEndian) else { return [] }
        return entries(of: window, ifdAt: offset, bigEndian: bigEndian)
    }

    /// The orientation tag of IFD0; `.up` when absent or unreadable.
    public static func orientation(in exif: Data) -> ImageOrientation {
        exif.withByteWindow { window in
            guard let bigEndian = isBigEndian(window),
                let entry = ifd0(of: window, bigEndian: bigEndian).first(where: { $0.tag == orientationTag && $0.type == 3 }),
                let value = window.uint16(at: entry.offset + 8, bigEndian: bigEndian)
            else { return .up }
            return ImageOrientation(exifValue: value)
        }
    }

    /// IFD0's Artist and Copyright strings, when present.
    public static func rights(in exif: Data) -> (artist: String?, copyright: String?) {
        exif.withByteWindow { window in
            guard let bigEndian = isBigEndian(window) else { return (nil, nil) }
            let entries = ifd0(of: window, bigEndian: bigEndian)
            func text(_ tag: Int) -> String? {
                guard let entry = entries.first(where: { $0.tag == tag && $0.type == 2 && $0.count > 0 }),
                    let at = entry.valueOffset(in: window, bigEndian: bigEndian), let value = window.slice(at, entry.count)
                else { return nil }
                let text = String(decoding: value.bytes.prefix { $0 != 0 }, as: UTF8.self)
                return text.isEmpty ? nil : text
            }
            return (text(artistTag), text(copyrightTag))
        }
    }

    /// A copy with IFD0's orientation set to 1 (when it has the tag) and the EXIF IFD's pixel
    /// dimensions set to the output's size (when it has them), for a photo whose pixels were
    /// turned upright and maybe resized. Nil when the bytes are not TIFF.
    public static func resettingOrientation(of exif: Data, width: Int, height: Int) -> Data? {
        var patches: [(offset: Int, value: Int, bytes: Int)] = []
        let bigEndian: Bool? = exif.withByteWindow { window in
            guard let bigEndian = isBigEndian(window) else { return nil }
            let ifd0 = ifd0(of: window, bigEndian: bigEndian)
            if let orientation = ifd0.first(where: { $0.tag == orientationTag && $0.type == 3 }) {
                patches.append((orientation.offset + 8, 1, 2))
            }
            if let pointer = ifd0.first(where: { $0.tag == exifIFDTag }),
                let offset = window.uint32(at: pointer.offset + 8, bigEndian: bigEndian) {
                for entry in entries(of: window, ifdAt: offset, bigEndian: bigEndian) where entry.count == 1 {
                    let value = entry.tag == pixelXDimensionTag ? width : entry.tag == pixelYDimensionTag ? height : nil
                    if let value, entry.type == 3, value <= 0xFFFF { patches.append((entry.offset + 8, value, 2)) }
                    if let value, entry.type == 4 { patches.append((entry.offset + 8, value, 4)) }
                }
            }
            return bigEndian
        }
        guard let bigEndian else { return nil }
        var copy = Data(exif)
        for patch in patches {
            for i in 0..<patch.bytes {
                let shift = 8 * (bigEndian ? patch.bytes - 1 - i : i)
                copy[copy.startIndex + patch.offset + i] = UInt8(truncatingIfNeeded: patch.value >> shift)
            }
        }
        return copy
    }

    /// A small big-endian EXIF with only IFD0's orientation (when not upright), artist and
    /// copyright (when given); nil when there is nothing to say.
    public static func minimal(orientation: ImageOrientation, artist: String? = nil, copyright: String? = nil) -> Data? {
        var fields: [(tag: Int, type: Int, count: Int, value: [UInt8])] = []
        if orientation != .up { fields.append((orientationTag, 3, 1, [0, UInt8(orientation.rawValue), 0, 0])) }
        for (tag, text) in [(artistTag, artist), (copyrightTag, copyright)] {
            guard let text, !text.isEmpty else { continue }
            let bytes = Array(text.utf8.prefix(4096)) + [0]
            fields.append((tag, 2, bytes.count, bytes))
        }
        guard !fields.isEmpty else { return nil }
        var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]
        func append(_ value: Int, bytes: Int) {
            for i in (0..<bytes).reversed() { tiff.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
        }
        append(fields.count, bytes: 2)
        var extra: [UInt8] = []
        let extraStart = 8 + 2 + fields.count * 12 + 4
        for field in fields {
            append(field.tag, bytes: 2)
            append(field.type, bytes: 2)
            append(field.count, bytes: 4)
            if field.value.count <= 4 {
                tiff += field.value + [UInt8](repeating: 0, count: 4 - field.value.count)
            } else {
                append(extraStart + extra.count, bytes: 4)
                extra += field.value
                if extra.count % 2 == 1 { extra.append(0) }  // values start on word boundaries
            }
        }
        append(0, bytes: 4)  // no IFD1
        return Data(tiff + extra)
    }
}
