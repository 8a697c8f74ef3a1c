import Foundation

/// Bounds-checked reads over bytes that came from the network: every read that would pass the
/// end returns nil instead (the unchecked subscripts of raw buffers do not check in release
/// builds). Offsets are from the window's start.
struct ByteWindow {
    let bytes: UnsafeRawBufferPointer

    var count: Int { bytes.count }

    func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    func uint16(at offset: Int, bigEndian: Bool) -> Int? {
        guard let a = byte(at: offset), let b = byte(at: offset + 1) else { return nil }
        return bigEndian ? Int(a) << 8 | Int(b) : Int(b) << 8 | Int(a)
    }

    func uint32(at offset: Int, bigEndian: Bool) -> Int? {
        guard let high = uint16(at: bigEndian ? offset : offset + 2, bigEndian: bigEndian),
            let low = uint16(at: bigEndian ? offset + 2 : offset, bigEndian: bigEndian)
        else { return nil }
        return high << 16 | low
    }

    /// `length` bytes from `offset`, or nil when they are not all there.
    func slice(_ offset: Int, _ length: Int) -> ByteWindow? {
        guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else { return nil }
        return ByteWindow(bytes: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]))
    }

    /// Whether the bytes at `offset` are exactly `prefix`.
    func starts(with prefix: [UInt8], at offset: Int = 0) -> Bool {
        guard let window = slice(offset, prefix.count) else { return false }
        return window.bytes.elementsEqual(prefix)
    }

    var data: Data { Data(bytes) }
}

extension Data {
    /// Runs `body` over the bytes as a bounds-checked window.
    func withByteWindow<T>(_ body: (ByteWindow) throws -> T) rethrows -> T {
        try withUnsafeBytes { try body(ByteWindow(bytes: $0)) }
    }
}
