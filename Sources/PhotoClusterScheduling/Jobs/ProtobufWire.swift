/// Protobuf's wire format (varints, tags, length-delimited fields), for the one message the
/// coordinator writes by hand: the graphs it sends, tens of thousands a second (see
/// `Job.encodeGraph`). Everything else goes through SwiftProtobuf.
package enum ProtobufWire {
    package static let varint: UInt8 = 0
    package static let lengthDelimited: UInt8 = 2

    package static func varintSize(_ value: UInt64) -> Int {
        var value = value
        var size = 1
        while value >= 0x80 {
            value >>= 7
            size += 1
        }
        return size
    }

    /// The bytes `appendVarintField` writes.
    package static func varintFieldSize(_ field: Int, _ value: UInt64) -> Int {
        value == 0 ? 0 : varintSize(UInt64(field) << 3) + varintSize(value)
    }

    /// The bytes `appendBytesField` writes for `count` bytes.
    package static func bytesFieldSize(_ field: Int, count: Int) -> Int {
        count == 0 ? 0 : varintSize(UInt64(field) << 3) + varintSize(UInt64(count)) + count
    }

    package static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    package static func appendTag(field: Int, wireType: UInt8, to bytes: inout [UInt8]) {
        appendVarint(UInt64(field) << 3 | UInt64(wireType), to: &bytes)
    }

    /// A varint field; left out when zero, as proto3 leaves out a default.
    package static func appendVarintField(_ field: Int, _ value: UInt64, to bytes: inout [UInt8]) {
        guard value != 0 else { return }
        appendTag(field: field, wireType: varint, to: &bytes)
        appendVarint(value, to: &bytes)
    }

    /// A length-delimited field (a string, bytes or an embedded message); left out when empty.
    package static func appendBytesField<Bytes: Collection>(_ field: Int, _ value: Bytes, to bytes: inout [UInt8]) where Bytes.Element == UInt8 {
        guard !value.isEmpty else { return }
        appendTag(field: field, wireType: lengthDelimited, to: &bytes)
        appendVarint(UInt64(value.count), to: &bytes)
        bytes.append(contentsOf: value)
    }
}
