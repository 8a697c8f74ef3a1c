import Foundation

/// The keys of a binary property list's top-level dictionary as the file stores them, repeats
/// and all, read from its object table: `PropertyListDecoder` merges keys that differ only in
/// Unicode normalisation (or repeat), as `PropertyListKeys` explains for XML.
///
/// The format (Apple's bplist00): a 32-byte trailer at the end gives the sizes of offsets and
/// object references, the number of objects, the top object and where the offset table lies;
/// a dictionary object is a marker 0xDn (n keys, or 0xDF and an integer object), n key
/// references, then n value references; a key is an ASCII (0x5n) or UTF-16 (0x6n) string.
/// Every read is bounds-checked: a list that does not parse gives nil, and the decoder's own
/// error stands.
enum BinaryPropertyListKeys {
    static func topLevel(in data: Data) -> [String]? {
        let bytes = [UInt8](data)
        guard bytes.count >= 40, bytes.starts(with: Array("bplist00".utf8)) else { return nil }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6]), referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
            let objects = integer(bytes, at: trailer + 8, size: 8), let top = integer(bytes, at: trailer + 16, size: 8),
            let table = integer(bytes, at: trailer + 24, size: 8), top < objects
        else { return nil }
        func offset(of object: Int) -> Int? {
            guard object < objects else { return nil }
            return integer(bytes, at: table + object * offsetSize, size: offsetSize)
        }
        guard let start = offset(of: top), start < trailer, bytes[start] >> 4 == 0xD,
            let (count, first) = length(bytes, at: start), count <= bytes.count
        else { return nil }
        var keys: [String] = []
        for index in 0..<count {
            guard let reference = integer(bytes, at: first + index * referenceSize, size: referenceSize),
                let at = offset(of: reference), let key = string(bytes, at: at)
            else { return nil }
            keys.append(key)
        }
        return keys
    }

    /// A big-endian unsigned integer of `size` bytes, when it fits in the data and in an Int.
    private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
        guard offset >= 0, size <= 8, offset <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + size] { value = value << 8 | UInt64(byte) }
        return value <= UInt64(Int.max / 16) ? Int(value) : nil
    }

    /// An object's length (the marker's low nibble, or the integer object after a nibble of 0xF)
    /// and where its contents start.
    private static func length(_ bytes: [UInt8], at offset: Int) -> (Int, Int)? {
        let nibble = Int(bytes[offset] & 0x0F)
        guard nibble == 0x0F else { return (nibble, offset + 1) }
        guard offset + 1 < bytes.count, bytes[offset + 1] >> 4 == 0x1 else { return nil }
        let size = 1 << Int(bytes[offset + 1] & 0x0F)
        guard let value = integer(bytes, at: offset + 2, size: size) else { return nil }
        return (value, offset + 2 + size)
    }

    private static func string(_ bytes: [UInt8], at offset: Int) -> String? {
        guard offset >= 0, offset < bytes.count, let (count, start) = length(bytes, at: offset) else { return nil }
        switch bytes[offset] >> 4 {
        case 0x5:  // ASCII
            guard start <= bytes.count - count else { return nil }
            return String(decoding: bytes[start..<start + count], as: UTF8.self)
        case 0x6:  // UTF-16, big-endian; count is in code units
            guard count <= (bytes.count - start) / 2 else { return nil }
            let units = (0..<count).map { UInt16(bytes[start + 2 * $0]) << 8 | UInt16(bytes[start + 2 * $0 + 1]) }
            return String(decoding: units, as: UTF16.self)
        default:
            return nil
        }
    }
}
