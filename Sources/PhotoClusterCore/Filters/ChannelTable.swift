/// A map of the 256 byte values applied to r, g and b of every pixel; alpha is copied.
///
/// For filters whose output channel depends only on the same input channel, a table computed
/// once in Double is exact to the definition and costs one load per byte. As a point filter's
/// transform it also runs inside the encoder (see `PointFilter`).
enum ChannelTable {
    /// The transform that maps each channel through `value`, worked out once for all 256 inputs.
    static func transform(_ value: (Int) -> UInt8) -> PixelTransform {
        let table = (0..<256).map(value)
        return { source, destination, count in
            table.withUnsafeBufferPointer { map(source, destination, count: count, table: $0.baseAddress!) }
        }
    }

    /// `source` and `destination` are the same memory or do not overlap: each byte is read
    /// before it is written.
    @inline(__always)
    static func map(_ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>, count: Int, table t: UnsafePointer<UInt8>) {
        for n in 0..<count {
            let i = n &* 4
            destination[i] = t[Int(source[i])]
            destination[i &+ 1] = t[Int(source[i &+ 1])]
            destination[i &+ 2] = t[Int(source[i &+ 2])]
            destination[i &+ 3] = source[i &+ 3]
        }
    }
}
