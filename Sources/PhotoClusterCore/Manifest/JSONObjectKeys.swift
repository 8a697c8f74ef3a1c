import Foundation

/// The keys of a JSON document's top-level object as the file spells them, in order, repeats
/// and all.
///
/// `JSONSerialization` hands back a `[String: Any]`, and Swift compares strings by canonical
/// equivalence: two keys that differ only in Unicode normalisation (NFC "é" and NFD "e" +
/// U+0301), or a key written twice, become one entry, and a photo would vanish without a word.
/// Reading the keys again from the bytes lets the manifest refuse them like any other duplicate.
enum JSONObjectKeys {
    /// The keys of the top-level object of `data`, which `JSONSerialization` has already read as
    /// a dictionary; nil if the bytes do not have that shape after all.
    static func topLevel(in data: Data) -> [String]? {
        let bytes = [UInt8](data)
        var index = skipSpace(bytes, 0)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        var keys: [String] = []
        while true {
            index = skipSpace(bytes, index)
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "}") { return keys }
            guard bytes[index] == UInt8(ascii: "\""), let end = stringEnd(bytes, index) else { return nil }
            let literal = Data(bytes[index..<end])
            guard let key = try? JSONSerialization.jsonObject(with: literal, options: [.fragmentsAllowed]) as? String else { return nil }
            keys.append(key)
            index = skipSpace(bytes, end)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            guard let after = valueEnd(bytes, skipSpace(bytes, index + 1)) else { return nil }
            index = skipSpace(bytes, after)
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] != UInt8(ascii: "}") {
                return nil
            }
        }
    }

    private static func skipSpace(_ bytes: [UInt8], _ start: Int) -> Int {
        var index = start
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index
    }

    /// The index just past the string literal that starts at `start` (a quote).
    private static func stringEnd(_ bytes: [UInt8], _ start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    /// The index just past the value that starts at `start`.
    private static func valueEnd(_ bytes: [UInt8], _ start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        if bytes[start] == UInt8(ascii: "\"") { return stringEnd(bytes, start) }
        var depth = 0
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                guard let end = stringEnd(bytes, index) else { return nil }
                index = end
                continue
            }
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                if depth == 0 { return index }
                depth -= 1
                if depth == 0 { return index + 1 }
            } else if depth == 0, byte == UInt8(ascii: ",") || [0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                return index
            }
            index += 1
        }
        return depth == 0 ? index : nil
    }
}
