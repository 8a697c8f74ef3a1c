import Foundation

/// Bytes as people read them: "1.2 GiB", "300 MiB", "512 KiB".
public struct ByteCount: CustomStringConvertible, Sendable {
    public let bytes: Int

    public init(_ bytes: Int) { self.bytes = bytes }

    public var description: String {
        let value = Double(bytes)
        if bytes >= 1 << 30 { return String(format: "%.1f GiB", value / Double(1 << 30)) }
        if bytes >= 1 << 20 { return "\(Int((value / Double(1 << 20)).rounded())) MiB" }
        if bytes >= 1 << 10 { return "\(Int((value / Double(1 << 10)).rounded())) KiB" }
        return "\(bytes) bytes"
    }
}
