import Foundation

/// Files built to make a decoder or a metadata reader work hard, written byte by byte (no
/// encoder makes them): every pixel is one flat grey, so a photo of 100 MP is a small download
/// whose cost lies all in its structure.
public enum HostileFiles {
    /// A baseline (SOF0) JPEG of `components` components (4: CMYK) at 1:1 sampling that sends
    /// each component in a scan of its own: libjpeg keeps every DCT coefficient of the frame
    /// until the last scan (2 bytes a sample), though the file is not progressive.
    public static func nonInterleavedJPEG(width: Int, height: Int, components: Int) -> Data {
        var file = JPEGStart(width: width, height: height, components: components, frame: 0xC0)
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        for component in 1...components {
            file.scan(components: [component], spectrum: 0...63, approximation: 0x00) { bits in
                // Every block: DC difference 0 (code "0"), then end of block (code "0").
                bits.writeZeros(blocks * 2)
            }
        }
        return file.finish()
    }

    /// A progressive (SOF2) grey JPEG of `scans` scans: the DC, the first AC pass, then the same
    /// AC refinement over and over. Each refinement passes over every coefficient of the frame,
    /// so decoding costs time in proportion to the scans; libjpeg warns of the repeats and goes on.
    public static func manyScanJPEG(width: Int, height: Int, scans: Int) -> Data {
        precondition(scans >= 3)
        var file = JPEGStart(width: width, height: height, components: 1, frame: 0xC2)
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        file.scan(components: [1], spectrum: 0...0, approximation: 0x00) { bits in
            bits.writeZeros(blocks)
        }
        file.scan(components: [1], spectrum: 1...63, approximation: 0x01) { bits in JPEGStart.endOfBands(blocks, into: &bits) }
        for _ in 0..<(scans - 2) {
            file.scan(components: [1], spectrum: 1...63, approximation: 0x10) { bits in JPEGStart.endOfBands(blocks, into: &bits) }
        }
        return file.finish()
    }

    /// A 1x1 PNG with `count` compressed iTXt chunks carrying the XMP keyword before its image
    /// data, each inflating to `inflatedBytes` (past the 1 MiB kept of an XMP packet).
    public static func textChunkPNG(count: Int, inflatedBytes: Int = 1_315_801) -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png += chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])  // 1x1, 8-bit gray
        var text = Data("XML:com.adobe.xmp".utf8)
        text += [0, 1, 0, 0, 0]  // NUL, compressed, method 0, empty language tag and translation
        text += zlibOfZeros(inflatedBytes)
        let one = chunk("iTXt", text)
        png.reserveCapacity(png.count + one.count * count + 64)
        for _ in 0..<count { png += one }
        png += chunk("IDAT", zlibStored([0, 0x80]))  // filter byte, one grey pixel
        png += chunk("IEND", [])
        return png
    }

    /// A 1x1 PNG cut short inside a `type` chunk after its IHDR that claims `claimed` bytes of
    /// body (a few follow): a file of some 60 bytes that asks its decoder for the claim.
    public static func truncatedChunkPNG(type: String, claimed: UInt32) -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png += chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])  // 1x1, 8-bit gray
        png += bigEndian(claimed)
        png += Data(type.utf8)
        png += Data("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0]
        return png
    }

    /// A PNG chunk: length, type, body, CRC of type and body.
    public static func chunk(_ type: String, _ body: some Collection<UInt8>) -> Data {
        var typed = Data(type.utf8)
        typed += body
        var out = bigEndian(UInt32(body.count))
        out += typed
        out += bigEndian(crc32(typed))
        return out
    }

    /// A zlib stream of `count` zero bytes (at least 1, then copies of 258), a few KB for a MB:
    /// one fixed-Huffman block of a literal 0 and back-references of length 258 at distance 1.
    public static func zlibOfZeros(_ count: Int) -> Data {
        let copies = max(0, (count - 1) / 258)
        var bits = BitWriterLSB()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman
        bits.writeCode(0x30, length: 8)  // literal 0
        for _ in 0..<copies {
            bits.writeCode(0xC5, length: 8)  // length code 285: 258
            bits.writeCode(0, length: 5)  // distance code 0: 1
        }
        bits.writeCode(0, length: 7)  // end of block
        var out = Data([0x78, 0x01])
        out += bits.allBytes
        let produced = 1 + copies * 258
        out += bigEndian(UInt32(produced % 65521) << 16 | 1)  // Adler-32 of zeros
        return out
    }

    private static func zlibStored(_ bytes: [UInt8]) -> Data {
        var out = Data([0x78, 0x01, 0x01])
        let length = UInt16(bytes.count)
        out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
        out += bytes
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        out += bigEndian(b << 16 | a)
        return out
    }

    static func bigEndian(_ value: UInt32) -> Data {
        Data([UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    public static func crc32(_ data: Data) -> UInt32 {
        ~data.reduce(~UInt32(0)) { crcTable[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
    }
}

/// The markers of a flat-grey JPEG up to its scans: a quantisation table of ones, and Huffman
/// tables where DC category 0 is "0" and the AC table holds the end-of-band runs (EOB0…EOB14,
/// 4 bits each) and, for a baseline file, EOB as "0".
struct JPEGStart {
    private var data = Data([0xFF, 0xD8])

    init(width: Int, height: Int, components: Int, frame: UInt8) {
        segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        var sof: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), UInt8(components)]
        for id in 1...components { sof += [UInt8(id), 0x11, 0] }
        segment(frame, sof)
        segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0])  // DC 0: category 0 is "0"
        if frame == 0xC0 {
            segment(0xC4, [0x10, 1] + [UInt8](repeating: 0, count: 15) + [0x00])  // AC 0: EOB is "0"
        } else {
            // AC 0: EOBn (n = 0…14, symbol n << 4) as the 4-bit codes 0000…1110.
            segment(0xC4, [0x10, 0, 0, 0, 15] + [UInt8](repeating: 0, count: 12) + (0...14).map { UInt8($0 << 4) })
        }
    }

    private mutating func segment(_ marker: UInt8, _ body: [UInt8]) {
        data += [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)]
        data += body
    }

    mutating func scan(components: [Int], spectrum: ClosedRange<Int>, approximation: UInt8, _ body: (inout BitWriterMSB) -> Void) {
        segment(0xDA, [UInt8(components.count)] + components.flatMap { [UInt8($0), 0x00] } + [UInt8(spectrum.lowerBound), UInt8(spectrum.upperBound), approximation])
        var bits = BitWriterMSB()
        body(&bits)
        data += bits.finish()
    }

    /// `blocks` blocks with no AC coefficient, as end-of-band runs of powers of two.
    static func endOfBands(_ blocks: Int, into bits: inout BitWriterMSB) {
        var left = blocks
        while left > 0 {
            let n = min(14, Int.bitWidth - 1 - left.leadingZeroBitCount)
            bits.write(UInt32(n), count: 4)  // EOBn: a run of 2^n, then n extra bits (0)
            if n > 0 { bits.write(0, count: n) }
            left -= 1 << n
        }
    }

    mutating func finish() -> Data {
        data += [0xFF, 0xD9]
        return data
    }
}

/// Bits most significant first, as JPEG's entropy-coded data is written: FF is followed by a
/// stuffed 00, and the last byte is padded with ones.
struct BitWriterMSB {
    private(set) var bytes = Data()
    private var current: UInt32 = 0
    private var used = 0

    mutating func write(_ value: UInt32, count: Int) {
        for i in stride(from: count - 1, through: 0, by: -1) {
            current = current << 1 | (value >> UInt32(i) & 1)
            used += 1
            if used == 8 { flush() }
        }
    }

    /// `count` zero bits, a byte at a time where it can.
    mutating func writeZeros(_ count: Int) {
        var left = count
        while left > 0 && used != 0 {
            write(0, count: 1)
            left -= 1
        }
        bytes.append(contentsOf: repeatElement(0, count: left / 8))
        write(0, count: left % 8)
    }

    private mutating func flush() {
        let byte = UInt8(current & 0xFF)
        bytes.append(byte)
        if byte == 0xFF { bytes.append(0) }
        current = 0
        used = 0
    }

    mutating func finish() -> Data {
        if used > 0 { write((1 << UInt32(8 - used)) - 1, count: 8 - used) }
        return bytes
    }
}

/// Bits least significant first, as deflate packs them; `writeCode` puts a Huffman code's bits
/// most significant first, as deflate's codes are read.
struct BitWriterLSB {
    private(set) var bytes = Data()
    private var current: UInt8 = 0
    private var used = 0

    mutating func write(_ value: UInt32, count: Int) {
        for i in 0..<count { bit(UInt8(value >> UInt32(i) & 1)) }
    }

    mutating func writeCode(_ code: UInt32, length: Int) {
        for i in stride(from: length - 1, through: 0, by: -1) { bit(UInt8(code >> UInt32(i) & 1)) }
    }

    private mutating func bit(_ value: UInt8) {
        current |= value << UInt8(used)
        used += 1
        if used == 8 {
            bytes.append(current)
            current = 0
            used = 0
        }
    }

    var allBytes: Data { used > 0 ? bytes + [current] : bytes }
}
