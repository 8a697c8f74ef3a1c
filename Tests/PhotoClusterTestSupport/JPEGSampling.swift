import Foundation

/// How a JPEG file subsamples chroma, read from its frame header (SOF0–2: each component's
/// sampling factors) with no decoder: what tests of the encoder's `chroma` check against.
public enum JPEGSampling {
    /// The luma component's horizontal and vertical sampling factors: [2, 2] is 4:2:0, [2, 1]
    /// 4:2:2, [1, 1] 4:4:4 (the chroma components are 1×1). Nil when no frame header is found.
    public static func lumaFactors(_ jpeg: Data) -> [Int]? {
        let bytes = [UInt8](jpeg)
        var i = 2
        while i + 11 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1], length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if marker == 0xC0 || marker == 0xC1 || marker == 0xC2 {
                let factors = bytes[i + 11]  // after length, precision, height, width, count, component id
                return [Int(factors >> 4), Int(factors & 15)]
            }
            i += 2 + length
        }
        return nil
    }
}
