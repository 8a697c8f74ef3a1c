import Foundation

/// The sRGB transfer curve as tables, for resampling in linear light: light adds up linearly, sRGB
/// values do not, so averaging sRGB values darkens fine detail (black and white lines shrunk 2×
/// give 128, where the light they send is sRGB 188). Values stay on the 0…255 scale throughout.
enum LinearLight {
    /// Indexed by channel << 8 | value: r, g, b as linear light ×255; alpha as it is.
    static let decodeTable: [Float] = (0..<1024).map { index in
        let value = Double(index & 255)
        guard index >> 8 != 3 else { return Float(value) }
        let c = value / 255
        return Float(255 * (c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)))
    }

    /// Linear light ×255 times this is an index of `encodeTable`: fine enough that the darkest
    /// steps of sRGB (12.92 levels per 1/255 of light) round correctly.
    static let encodeScale: Float = 65535.0 / 255

    /// Index round(linear·encodeScale) → the sRGB byte nearest to that light.
    static let encodeTable: [UInt8] = (0...65535).map { index in
        let l = Double(index) / 65535
        let c = l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055
        return UInt8(max(0, min(255, (255 * c).rounded())))
    }
}
