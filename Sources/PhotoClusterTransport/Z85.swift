import CZeroMQ
import Foundation

/// Z85 (ZeroMQ RFC 32) as CURVE keys use it: 32 key bytes are 40 printable characters.
enum Z85 {
    static let keyLength = 40
    static let rawKeyLength = 32
    private static let alphabet = Set(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
    )

    /// What is wrong with `key` as a Z85 CURVE key, or nil when it is a valid one.
    static func problem(with key: String) -> CurveKeyError.Problem? {
        let count = key.count
        if count != keyLength { return .wrongLength(count) }
        if let bad = key.first(where: { !alphabet.contains($0) }) {
            return .notZ85("character '\(bad)' is outside the Z85 alphabet")
        }
        // Every character can be in the alphabet and a 5-character group still overflow 32 bits.
        var raw = [UInt8](repeating: 0, count: rawKeyLength)
        if zmq_z85_decode(&raw, key) == nil { return .notZ85("a group of 5 characters is out of range") }
        return nil
    }

    /// Throws a `CurveKeyError` (no file) unless `key` is a valid Z85 CURVE key.
    static func requireKey(_ key: String) throws {
        if let problem = problem(with: key) { throw CurveKeyError(problem) }
    }

    /// The Z85 text of a 32-byte key, or nil for any other length.
    static func encode(key bytes: Data) -> String? {
        guard bytes.count == rawKeyLength else { return nil }
        var text = [CChar](repeating: 0, count: keyLength + 1)
        let encoded = bytes.withUnsafeBytes { raw in
            zmq_z85_encode(&text, raw.bindMemory(to: UInt8.self).baseAddress, rawKeyLength) != nil
        }
        return encoded ? string(text) : nil
    }

    /// A NUL-terminated C buffer as a String.
    static func string(_ buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
