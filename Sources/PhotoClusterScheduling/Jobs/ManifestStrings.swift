import Foundation

/// A job's manifest strings (each photo's name, URL and output stem) in one byte buffer, so a
/// photo's record holds no strings of its own: a million URLs are one allocation instead of a
/// million. A string comes back as a `String` when it is needed (a graph, a status, a log line).
package struct ManifestStrings {
    private var bytes: [UInt8] = []
    /// Where each string ends in `bytes`; string `i` starts where string `i - 1` ends.
    private var ends: [UInt32] = []

    package init(reservingStrings count: Int = 0, bytes byteCount: Int = 0) {
        ends.reserveCapacity(count)
        bytes.reserveCapacity(byteCount)
    }

    /// Strings held.
    package var count: Int { ends.count }

    /// Appends `string` and answers its number. A submit is at most 64 MiB (the client socket's
    /// message limit), so 32-bit offsets are plenty.
    @discardableResult
    package mutating func append(_ string: String) -> Int {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
        ends.append(UInt32(bytes.count))
        return ends.count - 1
    }

    /// String `number`.
    package subscript(number: Int) -> String {
        let start = number == 0 ? 0 : Int(ends[number - 1])
        let end = Int(ends[number])
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
    }

    /// String `number`'s UTF-8 bytes, in place.
    package func withBytes<Result>(_ number: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let start = number == 0 ? 0 : Int(ends[number - 1])
        let end = Int(ends[number])
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
    }

    /// String `number`'s length in UTF-8 bytes.
    package func byteCount(_ number: Int) -> Int {
        Int(ends[number]) - (number == 0 ? 0 : Int(ends[number - 1]))
    }

    /// Whether string `number` is empty, without making a `String`.
    package func isEmpty(_ number: Int) -> Bool {
        (number == 0 ? 0 : ends[number - 1]) == ends[number]
    }
}
