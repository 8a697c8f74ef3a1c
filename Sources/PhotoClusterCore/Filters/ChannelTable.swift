/// Applies a map of the 256 byte values to r, g and b of every pixel; alpha is untouched.
///
/// For filters whose output channel depends only on the same input channel, a table computed
/// once in Double is exact to the definition and costs one load per byte.
enum ChannelTable {
    static func apply(to image: RGBAImage, isCancelled: () -> Bool, value: (Int) -> UInt8) throws {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { buffer in
            let table = buffer.baseAddress!
            for i in 0..<256 { table[i] = value(i) }
            try RowBands.forEach(in: image, isCancelled: isCancelled) { rows in
                map(image.pixels + rows.lowerBound * image.width * 4, count: rows.count * image.width, table: table)
            }
        }
    }

    @inline(__always)
    static func map(_ p: UnsafeMutablePointer<UInt8>, count: Int, table t: UnsafePointer<UInt8>) {
        for n in 0..<count {
            let q = p + n &* 4
            q[0] = t[Int(q[0])]
            q[1] = t[Int(q[1])]
            q[2] = t[Int(q[2])]
        }
    }
}
