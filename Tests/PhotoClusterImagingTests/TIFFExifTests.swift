import Foundation
import XCTest

@testable import PhotoClusterImaging

/// Hostile TIFF directories, written out by hand: what the EXIF reader makes of a loop, a huge
/// count, a value past the end and a BigTIFF. Files from real writers: ImageContainerTests
/// (exif.tif) and ContainerFormatJobTests.
final class TIFFExifTests: XCTestCase {
    /// A little-endian TIFF of one directory at offset 8; `extra` follows it, at `extraStart`.
    private func tiff(_ entries: [(tag: Int, type: Int, count: Int, value: Int)], extra: [UInt8] = []) -> Data {
        var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]
        func put(_ value: Int, _ count: Int) { for i in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * i))) } }
        put(entries.count, 2)
        for entry in entries {
            put(entry.tag, 2)
            put(entry.type, 2)
            put(entry.count, 4)
            put(entry.value, 4)
        }
        put(0, 4)
        return Data(bytes + extra)
    }

    private func extraStart(_ entries: Int) -> Int { 8 + 2 + 12 * entries + 4 }

    func testADirectoryPointingBackAtItselfIsReadOnce() throws {
        let artist = Array("Ann\0".utf8)
        // The EXIF pointer leads to the first directory again, whose EXIF pointer leads there again.
        let file = tiff([(0x013B, 2, artist.count, Int(artist[0]) | Int(artist[1]) << 8 | Int(artist[2]) << 16), (0x8769, 4, 1, 8)])
        let exif = try XCTUnwrap(TIFFExif.exif(ofTIFF: file))
        XCTAssertEqual(Exif.rights(in: exif).artist, "Ann")
        XCTAssertLessThan(exif.count, 200, "the loop was not followed round")
    }

    func testAHugeCountAValuePastTheEndAndAnUnknownTypeAreLeftOut() throws {
        let copyright = Array("(c) B\0".utf8)
        let entries = [
            (tag: 0x010E, type: 2, count: 0x7FFF_FFFF, value: 0),  // a description of 2 GB
            (tag: 0x010F, type: 2, count: 64, value: 4000),  // past the end of the file
            (tag: 0x0110, type: 99, count: 1, value: 0),  // a type TIFF does not have
            (tag: 0x8298, type: 2, count: copyright.count, value: extraStart(4)),
        ]
        let exif = try XCTUnwrap(TIFFExif.exif(ofTIFF: tiff(entries, extra: copyright)))
        let tags = exif.withByteWindow { window in Exif.ifd0(of: window, bigEndian: false).map(\.tag) }
        XCTAssertEqual(tags, [0x8298])
        XCTAssertEqual(Exif.rights(in: exif).copyright, "(c) B")
    }

    func testNoDescriptiveTagsBigTIFFAndTruncatedFilesGiveNone() {
        XCTAssertNil(TIFFExif.exif(ofTIFF: tiff([(0x0100, 3, 1, 64), (0x0101, 3, 1, 48)])), "layout tags alone")
        XCTAssertNil(TIFFExif.exif(ofTIFF: Data([0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])), "BigTIFF")
        XCTAssertNil(TIFFExif.exif(ofTIFF: Data([0x49, 0x49, 0x2A, 0x00, 8, 0])), "cut inside the header")
    }
}
