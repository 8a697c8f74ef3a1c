import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterTestSupport
import XCTest

/// Files built to exhaust a decoder (see `HostileFiles`): what the decoder holds is read from the
/// file's real structure, a decoder fails at the memory it was given instead of growing, and the
/// header's work has caps that fail fast with the figure and a stop check between chunks.
final class HostileFileTests: XCTestCase {
    /// libjpeg keeps every coefficient of a baseline file whose first scan lacks components:
    /// 2 bytes a sample, 8 a pixel for CMYK. An interleaved file decodes row by row.
    func testANonInterleavedBaselineJPEGHoldsEveryCoefficient() throws {
        let cmyk = HostileFiles.nonInterleavedJPEG(width: 10000, height: 10000, components: 4)
        XCTAssertLessThan(cmyk.count, 2 << 20, "a small download")
        XCTAssertEqual(ImageCodec.decoderBytes(cmyk, format: .jpeg), 800_000_000)
        let ycc = HostileFiles.nonInterleavedJPEG(width: 1000, height: 1000, components: 3)
        XCTAssertEqual(ImageCodec.decoderBytes(ycc, format: .jpeg), 6_000_000)
        let image = try XCTUnwrap(RGBAImage(width: 64, height: 64))
        let interleaved = try ImageCodec.encode(image, as: .jpeg)
        XCTAssertEqual(ImageCodec.decoderBytes(interleaved, format: .jpeg), 0)
    }

    /// The file decodes (a flat grey) with room to spare, and fails as too large, naming the
    /// figure, when the decoder may hold less than its coefficients.
    func testAJPEGDecoderFailsAtTheMemoryItWasGranted() throws {
        let cmyk = HostileFiles.nonInterleavedJPEG(width: 2000, height: 2000, components: 4)
        let decoded = try ImageCodec.decode(cmyk, options: DecodeOptions(decoderMemoryLimit: 64 << 20))
        XCTAssertEqual(decoded.image.width, 2000)
        let error = assertCodecError(.tooLarge, try ImageCodec.decode(cmyk, options: DecodeOptions(decoderMemoryLimit: 8 << 20)))
        XCTAssertEqual(error?.message, "JPEG decoder needs more than the 8 MiB of memory it was granted")
    }

    /// libwebp's own probe finds the lossless image behind an ICC profile of 2 MiB.
    func testALosslessWebPIsKnownWhereverItsImageChunkLies() throws {
        let image = try XCTUnwrap(RGBAImage(width: 1000, height: 1000))
        image.pixels.update(repeating: 90, count: image.byteCount)
        let behind = try ImageCodec.encode(image, as: .webp, options: EncodeOptions(quality: 10, lossless: true, iccProfile: Data(count: 2 << 20)))
        let chunk = try XCTUnwrap(behind.range(of: Data("VP8L".utf8)))
        XCTAssertGreaterThan(chunk.lowerBound, 2 << 20, "the image chunk is behind the profile")
        XCTAssertEqual(ImageCodec.decoderBytes(behind, format: .webp), 4_000_000)
        // A lossy one decodes row by row, but its alpha plane whole; an opaque one keeps none.
        let lossy = try ImageCodec.encode(image, as: .webp, options: EncodeOptions(quality: 50))
        XCTAssertEqual(ImageCodec.decoderBytes(lossy, format: .webp), 1_000_000)
        for i in stride(from: 3, to: image.byteCount, by: 4) { image.pixels[i] = 255 }
        let opaque = try ImageCodec.encode(image, as: .webp, options: EncodeOptions(quality: 50))
        XCTAssertEqual(ImageCodec.decoderBytes(opaque, format: .webp), 0)
    }

    /// libpng allocates and zeroes a text, eXIf or sPLT chunk's declared length before it reads
    /// the body: a truncated chunk that claims more than the file holds is refused before libpng
    /// sees it, on both paths (whole, and row by row into a reduction), naming chunk and claim.
    func testAPNGChunkClaimingMoreThanTheFileHoldsIsRefusedBeforeLibpngAllocatesIt() throws {
        for type in ["iTXt", "zTXt", "tEXt", "eXIf", "sPLT", "iCCP", "prVt"] {
            let png = HostileFiles.truncatedChunkPNG(type: type, claimed: 64 << 20)
            XCTAssertLessThan(png.count, 100)
            let whole = assertCodecError(.corrupt, try ImageCodec.decode(png))
            XCTAssertEqual(whole?.message, "PNG data is truncated: its \(type) chunk at byte 33 claims 67108864 bytes, 22 are left", type)
            let reducing = DecodeOptions(reduceTo: ImageSize(width: 1, height: 1))
            XCTAssertEqual(assertCodecError(.corrupt, try ImageCodec.decode(png, options: reducing))?.message, whole?.message, type)
        }
        var garbled = HostileFiles.truncatedChunkPNG(type: "iTXt", claimed: 1 << 30)
        garbled[37] = 0x01  // a type that is no name
        XCTAssertEqual(assertCodecError(.corrupt, try ImageCodec.decode(garbled))?.message, "PNG data is truncated: a chunk at byte 33 claims 1073741824 bytes, 22 are left")
        // What follows IEND is not the image's: a truncated chunk there is not read.
        let image = try XCTUnwrap(RGBAImage(width: 8, height: 8))
        let trailing = try ImageCodec.encode(image, as: .png) + HostileFiles.truncatedChunkPNG(type: "iTXt", claimed: 64 << 20).dropFirst(8)
        XCTAssertEqual(try ImageCodec.decode(trailing).image.width, 8)
    }

    /// Scans are counted before the first is decoded: the whole count is in the message.
    func testAJPEGOfTooManyScansIsRefusedWithItsCount() throws {
        let most = HostileFiles.manyScanJPEG(width: 64, height: 64, scans: ImageCodec.maxJPEGScans)
        XCTAssertEqual(try ImageCodec.decode(most).image.width, 64)
        // What follows the end of the image (a camera's second picture) is not counted.
        let appended = most + HostileFiles.manyScanJPEG(width: 8, height: 8, scans: 50)
        XCTAssertEqual(try ImageCodec.decode(appended).image.width, 64)
        let over = HostileFiles.manyScanJPEG(width: 64, height: 64, scans: 700)
        let error = assertCodecError(.corrupt, try ImageCodec.decode(over))
        XCTAssertEqual(error?.message, "JPEG has 700 scans, more than the 100 a photo may have")
    }

    /// Past the cap on text chunks the header fails, naming it; at the cap it is read (its XMP,
    /// over 1 MiB inflated, left out) and the pixels decode, libpng skipping the text unread.
    func testAPNGOfTensOfThousandsOfTextChunksFailsFastWithTheFigure() throws {
        let flood = HostileFiles.textChunkPNG(count: 20_000, inflatedBytes: 65536)
        let error = assertCodecError(.tooLarge, try ImageCodec.inspect(flood))
        XCTAssertEqual(error?.message, "PNG has more than 1000 text chunks (tEXt, zTXt, iTXt), the most a photo may have")
        let most = HostileFiles.textChunkPNG(count: 1000)
        XCTAssertNil(try ImageCodec.inspect(most).metadata.xmp)
        XCTAssertEqual(try ImageCodec.decode(most, options: DecodeOptions()).image.width, 1)
    }

    /// Empty chunks by the hundred thousand: refused past the cap, naming it.
    func testAFileOfEndlessEmptyChunksFailsWithTheFigure() throws {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png += HostileFiles.chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])
        let empty = HostileFiles.chunk("prVt", [])
        png += Data((0..<100_001).lazy.flatMap { _ in empty })
        png += HostileFiles.chunk("IEND", [])
        let error = assertCodecError(.tooLarge, try ImageCodec.inspect(png))
        XCTAssertEqual(error?.message, "PNG has more than 100000 chunks besides its image data, the most a photo may have")
        var jpeg = Data([0xFF, 0xD8])
        jpeg += Data((0..<100_001).lazy.flatMap { _ in [UInt8]([0xFF, 0xFE, 0x00, 0x02]) })  // empty comments
        let segments = assertCodecError(.tooLarge, try ImageCodec.inspect(jpeg))
        XCTAssertEqual(segments?.message, "JPEG has more than 100000 segments before its first scan, the most a photo may have")
    }

    /// The inflated bytes of a file's metadata have one budget: after eight packets inflated to
    /// the 1 MiB cap, a small XMP packet is left out; after seven it is read.
    func testCompressedMetadataSharesOneBudgetOfInflatedBytes() throws {
        func png(bigPackets: Int) -> Data {
            var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            png += HostileFiles.chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])
            let header = Data("XML:com.adobe.xmp".utf8) + [0, 1, 0, 0, 0]
            for _ in 0..<bigPackets { png += HostileFiles.chunk("iTXt", header + HostileFiles.zlibOfZeros(1_315_801)) }
            png += HostileFiles.chunk("iTXt", header + HostileFiles.zlibOfZeros(259))
            png += HostileFiles.chunk("IEND", [])
            return png
        }
        XCTAssertEqual(try ImageCodec.inspect(png(bigPackets: 7)).metadata.xmp?.count, 259)
        XCTAssertNil(try ImageCodec.inspect(png(bigPackets: 8)).metadata.xmp)
    }

    /// The header walk asks to stop between chunks.
    func testTheHeaderWalkStopsWhenAsked() throws {
        let png = HostileFiles.textChunkPNG(count: 500)
        var asked = 0
        XCTAssertThrowsError(try ImageCodec.inspect(png, shouldStop: {
            asked += 1
            return asked > 10
        })) { XCTAssertTrue($0 is DecodeStopped, "\($0)") }
        XCTAssertEqual(asked, 11)
    }
}
