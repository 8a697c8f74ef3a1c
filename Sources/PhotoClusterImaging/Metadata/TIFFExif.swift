import Foundation

/// A TIFF file's EXIF, in the form the other formats carry it (TIFF-structured EXIF, as in a
/// JPEG's APP1), so `--metadata` treats a TIFF like a JPEG. A TIFF keeps its EXIF in its first
/// directory (Artist, Copyright, Make, Model, Orientation… beside the tags that lay out its
/// pixels) and in the EXIF and GPS directories that directory points to. The blob made here
/// holds the descriptive tags of the first directory and those two directories, with their
/// values copied in the file's byte order and their offsets made anew; the pixel layout tags,
/// and the MakerNote (its offsets point into the original file), are left out.
///
/// Every offset comes from the network: reads go through `ByteWindow`, each directory's entries
/// are capped (`Exif.maxEntries`), and the blob stays within one JPEG APP1 segment.
enum TIFFExif {
    /// First-directory tags that describe the photo, not its pixels' layout.
    static let descriptiveTags: Set<Int> = [
        0x010E,  // ImageDescription
        0x010F,  // Make
        0x0110,  // Model
        Exif.orientationTag,
        0x011A, 0x011B, 0x0128,  // XResolution, YResolution, ResolutionUnit
        0x0131,  // Software
        0x0132,  // DateTime
        Exif.artistTag,
        Exif.copyrightTag,
    ]
    static let gpsIFDTag = 0x8825
    static let interoperabilityIFDTag = 0xA005
    static let makerNoteTag = 0x927C
    /// Within a JPEG APP1 segment (65,533 bytes less "Exif\0\0"), with room to spare.
    static let maxBytes = 60_000
    /// Bytes per value of each TIFF field type (BYTE, ASCII, SHORT, LONG, RATIONAL, SBYTE,
    /// UNDEFINED, SSHORT, SLONG, SRATIONAL, FLOAT, DOUBLE, IFD).
    static let typeSizes: [Int: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]

    /// One field to write: its value's bytes in the file's byte order, or a directory it points to.
    struct Field {
        let tag: Int
        let type: Int
        let count: Int
        var value: [UInt8] = []
        var directory: [Field]?
    }

    /// The EXIF of a classic TIFF file (BigTIFF has none here), or nil when it has no tag worth
    /// carrying.
    static func exif(ofTIFF data: Data) -> Data? {
        data.withByteWindow { window -> Data? in
            guard let bigEndian = Exif.isBigEndian(window) else { return nil }
            var budget = maxBytes
            var visited: Set<Int> = []
            let first = Exif.ifd0(of: window, bigEndian: bigEndian).filter { descriptiveTags.contains($0.tag) || $0.tag == Exif.exifIFDTag || $0.tag == gpsIFDTag }
            let fields = read(first, level: 0, window: window, bigEndian: bigEndian, budget: &budget, visited: &visited)
            guard !fields.isEmpty else { return nil }
            return Data(write(fields, bigEndian: bigEndian))
        }
    }

    /// The directories each level may point to: the first directory the EXIF and GPS ones, the
    /// EXIF directory the interoperability one; so a crafted file cannot make the walk deep.
    static let pointersByLevel: [Set<Int>] = [[Exif.exifIFDTag, gpsIFDTag], [interoperabilityIFDTag], []]
    static let allPointers: Set<Int> = [Exif.exifIFDTag, gpsIFDTag, interoperabilityIFDTag]

    /// The fields of `entries`, a directory at depth `level`, following the directories it may
    /// point to (each once), skipping the MakerNote, types it does not know and values that would
    /// pass the budget.
    private static func read(
        _ entries: [Exif.Entry], level: Int, window: ByteWindow, bigEndian: Bool, budget: inout Int, visited: inout Set<Int>
    ) -> [Field] {
        var fields: [Field] = []
        for entry in entries where entry.tag != makerNoteTag {
            guard let size = typeSizes[entry.type], entry.count > 0, entry.count <= budget / size else { continue }
            let length = size * entry.count
            if allPointers.contains(entry.tag) {
                guard pointersByLevel[level].contains(entry.tag), entry.count == 1, entry.type == 4 || entry.type == 13,
                    let offset = window.uint32(at: entry.offset + 8, bigEndian: bigEndian), visited.insert(offset).inserted
                else { continue }
                budget -= 12
                let inner = read(
                    Exif.entries(of: window, ifdAt: offset, bigEndian: bigEndian), level: level + 1, window: window, bigEndian: bigEndian, budget: &budget,
                    visited: &visited)
                if !inner.isEmpty { fields.append(Field(tag: entry.tag, type: 4, count: 1, directory: inner)) }
                continue
            }
            let at = length <= 4 ? entry.offset + 8 : window.uint32(at: entry.offset + 8, bigEndian: bigEndian)
            guard let at, let value = window.slice(at, length), length + 12 <= budget else { continue }
            budget -= length + 12
            fields.append(Field(tag: entry.tag, type: entry.type, count: entry.count, value: Array(value.bytes)))
        }
        return fields.sorted { $0.tag < $1.tag }  // TIFF wants a directory's tags in ascending order
    }

    /// The TIFF header, then each directory: its entries, its values that do not fit in an
    /// entry, then the directories it points to.
    private static func write(_ fields: [Field], bigEndian: Bool) -> [UInt8] {
        var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]
        put(8, bytes: 4, at: append(4, to: &out), in: &out, bigEndian: bigEndian)
        writeDirectory(fields, into: &out, bigEndian: bigEndian)
        return out
    }

    /// Writes a directory at the end of `out` and answers where it starts.
    @discardableResult
    private static func writeDirectory(_ fields: [Field], into out: inout [UInt8], bigEndian: Bool) -> Int {
        let start = out.count
        put(fields.count, bytes: 2, at: append(2, to: &out), in: &out, bigEndian: bigEndian)
        var pointers: [(at: Int, directory: [Field])] = []
        var outOfLine: [(at: Int, value: [UInt8])] = []
        for field in fields {
            put(field.tag, bytes: 2, at: append(2, to: &out), in: &out, bigEndian: bigEndian)
            put(field.type, bytes: 2, at: append(2, to: &out), in: &out, bigEndian: bigEndian)
            put(field.count, bytes: 4, at: append(4, to: &out), in: &out, bigEndian: bigEndian)
            let slot = append(4, to: &out)
            if let directory = field.directory {
                pointers.append((slot, directory))
            } else if field.value.count <= 4 {
                out.replaceSubrange(slot..<slot + field.value.count, with: field.value)
            } else {
                outOfLine.append((slot, field.value))
            }
        }
        _ = append(4, to: &out)  // no next directory
        for (slot, value) in outOfLine {
            put(out.count, bytes: 4, at: slot, in: &out, bigEndian: bigEndian)
            out += value
            if out.count % 2 == 1 { out.append(0) }  // values start on word boundaries
        }
        for (slot, directory) in pointers {
            put(out.count, bytes: 4, at: slot, in: &out, bigEndian: bigEndian)
            writeDirectory(directory, into: &out, bigEndian: bigEndian)
        }
        return start
    }

    /// Appends `count` zero bytes and answers where they start.
    private static func append(_ count: Int, to out: inout [UInt8]) -> Int {
        out += [UInt8](repeating: 0, count: count)
        return out.count - count
    }

    private static func put(_ value: Int, bytes: Int, at offset: Int, in out: inout [UInt8], bigEndian: Bool) {
        for i in 0..<bytes {
            out[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * (bigEndian ? bytes - 1 - i : i)))
        }
    }
}
