import Foundation

/// Edits of encoded files for the bad-input tests.
enum ByteSurgery {
    /// Rewrites the frame size in the first SOF marker of a JPEG.
    static func jpeg(_ data: Data, settingWidth width: UInt16, height: UInt16) -> Data {
        var bytes = [UInt8](data)
        var i = 2
        while i + 9 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xC2).contains(marker) {
                bytes[i + 5] = UInt8(height >> 8); bytes[i + 6] = UInt8(height & 0xFF)
                bytes[i + 7] = UInt8(width >> 8); bytes[i + 8] = UInt8(width & 0xFF)
                return Data(bytes)
            }
            i += 2 + length
        }
        preconditionFailure("no SOF marker")
    }

    /// A PNG signature and a valid IHDR chunk declaring `width` x `height` RGBA pixels,
    /// followed by a small IDAT and IEND.
    static func pngHeader(width: UInt32, height: UInt32) -> Data {
        var ihdr = Data()
        ihdr.append(bigEndian: width)
        ihdr.append(bigEndian: height)
        ihdr.append(contentsOf: [8, 6, 0, 0, 0])
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png.append(chunk("IHDR", ihdr))
        png.append(chunk("IDAT", Data([0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01])))
        png.append(chunk("IEND", Data()))
        return png
    }

    /// Flips one byte of the first IDAT chunk: in its compressed data (leaving the CRC stale),
    /// or in the stored CRC itself.
    static func pngCorruptingIDAT(_ data: Data, inCRC: Bool) -> Data {
        var bytes = [UInt8](data)
        var i = 8
        while i + 8 <= bytes.count {
            let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self) == "IDAT" {
                bytes[inCRC ? i + 8 + length : i + 8 + length / 2] ^= 0x55
                return Data(bytes)
            }
            i += 12 + length
        }
        preconditionFailure("no IDAT chunk")
    }

    static func chunk(_ type: String, _ body: Data) -> Data {
        let typed = Data(type.utf8) + body
        var out = Data()
        out.append(bigEndian: UInt32(body.count))
        out.append(typed)
        out.append(bigEndian: crc32(typed))
        return out
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

extension Data {
    mutating func append(bigEndian value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }
}
