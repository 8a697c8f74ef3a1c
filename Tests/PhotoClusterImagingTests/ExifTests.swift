import Foundation
import PhotoClusterCore
@testable import PhotoClusterImaging
import XCTest

/// The EXIF reader and writer: both byte orders, the fields policies keep, and bytes that lie.
final class ExifTests: XCTestCase {
    /// A little-endian TIFF with IFD0 = [orientation, Exif IFD pointer] and an Exif IFD with
    /// pixel dimensions (SHORT and LONG).
    private func littleEndianExif(orientation: UInt16) -> Data {
        var b: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]
        func u16(_ v: Int) { b += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: Int) { u16(v & 0xFFFF); u16(v >> 16) }
        u16(2)
        u16(0x0112); u16(3); u32(1); u16(Int(orientation)); u16(0)
        u16(0x8769); u16(4); u32(1); u32(8 + 2 + 24 + 4)
        u32(0)
        u16(2)
        u16(0xA002); u16(3); u32(1); u16(4000); u16(0)
        u16(0xA003); u16(4); u32(1); u32(3000)
        u32(0)
        return Data(b)
    }

    func testOrientationInBothByteOrders() {
        XCTAssertEqual(Exif.orientation(in: littleEndianExif(orientation: 6)), .right)
        XCTAssertEqual(Exif.orientation(in: Exif.minimal(orientation: .left)!), .left)
        XCTAssertEqual(Exif.orientation(in: Data("not exif at all".utf8)), .up)
    }

    func testResettingOrientationPatchesTheTagAndTheDimensions() throws {
        let reset = try XCTUnwrap(Exif.resettingOrientation(of: littleEndianExif(orientation: 8), width: 512, height: 70000))
        XCTAssertEqual(Exif.orientation(in: reset), .up)
        reset.withByteWindow { window in
            XCTAssertEqual(window.uint16(at: 8 + 2 + 24 + 4 + 2 + 8, bigEndian: false), 512)
            XCTAssertEqual(window.uint32(at: 8 + 2 + 24 + 4 + 2 + 12 + 8, bigEndian: false), 70000)
        }
    }

    func testMinimalCarriesRightsAndNothingWhenEmpty() {
        XCTAssertNil(Exif.minimal(orientation: .up))
        let exif = Exif.minimal(orientation: .up, artist: "Ada", copyright: "(c) Ada, 2026")!
        let rights = Exif.rights(in: exif)
        XCTAssertEqual(rights.artist, "Ada")
        XCTAssertEqual(rights.copyright, "(c) Ada, 2026")
        XCTAssertEqual(Exif.orientation(in: exif), .up)
    }

    func testLyingOffsetsAndCountsAreHarmless() {
        // IFD0 offset past the end, entry counts beyond the data, values pointing anywhere.
        for tail in [[0xFF, 0xFF, 0xFF, 0x7F], [8, 0, 0, 0, 0xFF, 0xFF], [8, 0, 0, 0, 1, 0, 0x3B, 0x01, 2, 0, 0xFF, 0xFF, 0xFF, 0x0F, 0xF0, 0xFF, 0xFF, 0x0F]] {
            let bytes = Data([0x49, 0x49, 0x2A, 0x00] + tail.map(UInt8.init))
            XCTAssertEqual(Exif.orientation(in: bytes), .up)
            XCTAssertNil(Exif.rights(in: bytes).artist)
            XCTAssertNotNil(Exif.resettingOrientation(of: bytes, width: 1, height: 1))
        }
    }

    func testAnICCChunkThatCountsZeroChunksIsLeftOut() throws {
        // SOI, then APP2 "ICC_PROFILE\0" with sequence 1 of a count of 0 (found by FuzzMetadata:
        // the check of the sequence against the count trapped), then EOI.
        let payload: [UInt8] = Array("ICC_PROFILE".utf8) + [0, 1, 0] + Array(repeating: 0, count: 8)
        let length = payload.count + 2
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + [0xFF, 0xD9])
        XCTAssertNil(try ImageCodec.inspect(jpeg).metadata.iccProfile)
    }

    func testInspectFindsMetadataInPhotosTheCodecWrote() throws {
        // JPEG spreads a large profile over two APP2 segments; libpng writes only profiles it
        // finds valid, so PNG gets a real one (Fixtures/srgb.icc, made by Pillow's Little CMS).
        let profiles: [ImageFormat: Data] = [.jpeg: try fixtureProfile(), .png: try fixture("srgb.icc")]
        let exif = Exif.minimal(orientation: .rightMirrored, artist: "Ada")
        let xmp = Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        // HEIF's own containers are read by libheif: ImageContainerTests covers them.
        for format in [ImageFormat.jpeg, .png, .webp] {
            let profile = profiles[format]
            let data = try ImageCodec.encode(makeImage(width: 9, height: 5, alpha: false), as: format, options: EncodeOptions(iccProfile: profile, exif: exif, xmp: xmp))
            let header = try ImageCodec.inspect(data)
            XCTAssertEqual(header.width, 9)
            XCTAssertEqual(header.height, 5)
            XCTAssertEqual(header.metadata.orientation, .rightMirrored, "\(format)")
            XCTAssertEqual(header.metadata.iccProfile, profile, "\(format)")
            XCTAssertEqual(header.metadata.exif, exif, "\(format)")
            XCTAssertEqual(header.metadata.xmp, xmp, "\(format)")
        }
    }

    /// A small valid-looking ICC header (size, `acsp`), large enough to span two JPEG segments.
    private func fixtureProfile() throws -> Data {
        var profile = Data(count: 70_000)
        profile.withUnsafeMutableBytes { raw in
            let size = UInt32(70_000).bigEndian
            withUnsafeBytes(of: size) { raw.copyMemory(from: $0) }
            for (i, c) in "acsp".utf8.enumerated() { raw[36 + i] = c }
            for i in 128..<raw.count { raw[i] = UInt8(truncatingIfNeeded: i * 7) }
        }
        return profile
    }
}
