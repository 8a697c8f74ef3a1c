import Foundation
import PhotoClusterCore
@testable import PhotoClusterImaging
import PhotoClusterTestSupport
import XCTest

/// HEIC, AVIF, TIFF and GIF made by encoders independent of the product's codecs (heif-enc,
/// avifenc, tiffcp, Pillow, pillow-heif: Tests/Imaging/container_photos.py) decode to the picture
/// they were made from, recognised by content; hostile files fail with a reason naming the
/// format; AVIF written here reads back with its alpha and metadata.
final class ImageContainerTests: XCTestCase {
    private static var made: URL?
    private static var hostile: URL?
    private static let python = Repository.root.appendingPathComponent(".build-test-tools/venv/bin/python")
    private static let helper = Repository.root.appendingPathComponent("Tests/Imaging/container_photos.py")

    override class func tearDown() {
        for directory in [made, hostile].compactMap({ $0 }) { try? FileManager.default.removeItem(at: directory) }
    }

    /// The files, made once for the class.
    private func files() throws -> URL {
        if let made = Self.made { return made }
        let directory = Repository.temporaryDirectory("containers")
        try runHelper(["make", Repository.samplePhotos.appendingPathComponent("chelsea.jpg").path, directory.path])
        Self.made = directory
        return directory
    }

    private func hostileFiles() throws -> URL {
        if let hostile = Self.hostile { return hostile }
        let directory = Repository.temporaryDirectory("hostile-containers")
        try runHelper(["hostile", directory.path])
        Self.hostile = directory
        return directory
    }

    private func runHelper(_ arguments: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python.path) else {
            throw XCTSkip("\(Self.python.path) is missing: run scripts/install-test-tools (make test does)")
        }
        let log = Repository.temporaryDirectory("container-log").appendingPathComponent("log")
        let child = try ChildProcess(Self.python.path, [Self.helper.path] + arguments, output: log)
        XCTAssertTrue(child.waitForExit(timeout: 120))
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: log.deletingLastPathComponent())
        // Installed but failing is a failure, not a skip: the files it makes are what is tested.
        guard child.status == 0 else { throw HelperFailed(description: "container_photos.py \(arguments[0]) failed: \(output)") }
    }

    private struct HelperFailed: Error, CustomStringConvertible { let description: String }

    private func data(_ name: String) throws -> Data { try Data(contentsOf: files().appendingPathComponent(name)) }

    private func source() throws -> RGBAImage { try ImageCodec.decode(data("source.png")).image }

    func testEveryFormatIsRecognisedByContentAndDecodesToThePicture() throws {
        let picture = try source()
        let expected: [(String, ImageFormat, Double)] = [
            ("heic.heic", .heif, 34), ("heif-av1.avif", .avif, 34), ("avif.avif", .avif, 34), ("avif10.avif", .avif, 34),
            ("tiff8.tif", .tiff, 99), ("tiff16.tif", .tiff, 99), ("tiled16.tif", .tiff, 99), ("gif.gif", .gif, 24),
        ]
        for (name, format, floor) in expected {
            let bytes = try data(name)
            XCTAssertEqual(ImageCodec.sniff(bytes), format, name)
            let header = try ImageCodec.inspect(bytes)
            XCTAssertEqual([header.width, header.height], [384, 256], name)
            XCTAssertGreaterThan(header.decoderScratchBytes, 0, name)
            let decoded = try ImageCodec.decode(bytes, options: DecodeOptions())
            XCTAssertEqual(decoded.format, format, name)
            XCTAssertGreaterThanOrEqual(psnr(decoded.image, picture, skippingTransparent: true), floor, name)
        }
    }

    func testTenBitAVIFIsScaledTo8BitsNotCut() throws {
        let header = try ImageCodec.inspect(data("avif10.avif"))
        let decoded = try ImageCodec.decode(data("avif10.avif"), options: DecodeOptions())
        // Cut instead of scaled, 10-bit values would wrap or saturate: the picture would be lost.
        XCTAssertGreaterThanOrEqual(psnr(decoded.image, try source()), 34)
        XCTAssertGreaterThan(header.decoderScratchBytes, 384 * 256 * 8, "16-bit planes are counted")
    }

    func testGIFKeepsItsTransparentIndexAndSixteenBitGrayStaysGray() throws {
        let gif = try ImageCodec.decode(data("gif.gif"), options: DecodeOptions()).image
        XCTAssertEqual(gif[3, 3].a, 0, "the transparent index")
        XCTAssertEqual(gif[200, 200].a, 255)
        let gray = try ImageCodec.decode(data("gray16.tif"), options: DecodeOptions())
        XCTAssertTrue(gray.isGray)
        XCTAssertTrue(gray.image.isGray)
    }

    func testHEIFTransformationsAreAppliedOnceAndItsEXIFOrientationNever() throws {
        // pillow-heif wrote an irot box (and EXIF orientation 6) for a photo stored on its side.
        let bytes = try data("irot.heic")
        let header = try ImageCodec.inspect(bytes)
        XCTAssertEqual([header.width, header.height], [384, 256], "upright size")
        XCTAssertEqual(header.metadata.orientation, .up, "never turned again by EXIF")
        if let exif = header.metadata.exif { XCTAssertEqual(Exif.orientation(in: exif), .up, "reset in the EXIF that is kept") }
        let decoded = try ImageCodec.decode(bytes, options: DecodeOptions())
        XCTAssertGreaterThanOrEqual(psnr(decoded.image, try source()), 30)
    }

    /// grid.heic: the 451x300 photo as phones store it, a grid item naming a 4x3 grid of hidden
    /// 128x128 hvc1 tiles (each encoded by heif-enc on its own) whose last column and row overhang
    /// it and are cut off.
    func testAHEICGridIsPutTogetherWholeAndCutToItsSize() throws {
        let bytes = try data("grid.heic")
        XCTAssertEqual(ImageCodec.sniff(bytes), .heif)
        let header = try ImageCodec.inspect(bytes)
        XCTAssertEqual([header.width, header.height], [451, 300], "the grid's size, not a tile's nor the tiles'")
        XCTAssertGreaterThanOrEqual(header.decoderScratchBytes, 451 * 300 * 4, "the whole grid is counted, not a tile")
        let decoded = try ImageCodec.decode(bytes, options: DecodeOptions())
        XCTAssertEqual(decoded.format, .heif)
        XCTAssertEqual([decoded.image.width, decoded.image.height], [451, 300])
        let picture = try ImageCodec.decode(data("grid-source.png")).image
        XCTAssertGreaterThanOrEqual(psnr(decoded.image, picture), 34)
        let reduced = try ImageCodec.decode(bytes, options: DecodeOptions(reduceTo: ImageSize(width: 113, height: 75)))
        XCTAssertTrue(reduced.isReduced)
        XCTAssertEqual([reduced.image.width, reduced.image.height], [113, 75])
    }

    /// grid-irot.heic: the same grid with an irot box (a quarter turn anticlockwise) on the grid
    /// item: turned once, as a whole, after the tiles are put together.
    func testAHEICGridsTransformationIsAppliedToTheWholeGrid() throws {
        let bytes = try data("grid-irot.heic")
        let header = try ImageCodec.inspect(bytes)
        XCTAssertEqual([header.width, header.height], [300, 451], "upright size")
        XCTAssertEqual(header.metadata.orientation, .up, "never turned again by EXIF")
        let decoded = try ImageCodec.decode(bytes, options: DecodeOptions())
        XCTAssertEqual([decoded.image.width, decoded.image.height], [300, 451])
        // Pillow turned the picture it was made from.
        XCTAssertGreaterThanOrEqual(psnr(decoded.image, try ImageCodec.decode(data("grid-rot.png")).image), 34)
    }

    /// exif.tif: Pillow's Make, Model, Artist, Copyright and Orientation 6, exiftool's EXIF and GPS
    /// directories; read into an EXIF blob that says the same, without the TIFF's layout tags.
    func testATIFFsEXIFIsReadFromItsDirectories() throws {
        let header = try ImageCodec.inspect(data("exif.tif"))
        XCTAssertEqual(header.metadata.orientation, .right)
        let exif = try XCTUnwrap(header.metadata.exif)
        XCTAssertEqual(Exif.orientation(in: exif), .right)
        XCTAssertEqual(Exif.rights(in: exif).artist, "Jane Doe")
        XCTAssertEqual(Exif.rights(in: exif).copyright, "(c) Jane Doe")
        let tags = exif.withByteWindow { window in
            Exif.ifd0(of: window, bigEndian: Exif.isBigEndian(window)!).map(\.tag)
        }
        XCTAssertEqual(tags, [0x010F, 0x0110, 0x0112, 0x013B, 0x8298, 0x8769, 0x8825], "descriptive tags and the two directories, ascending")
        XCTAssertNil(try ImageCodec.inspect(data("tiff8.tif")).metadata.exif, "a TIFF with nothing to say has no EXIF")
    }

    func testADisplayP3HEICCarriesItsProfile() throws {
        let profile = try XCTUnwrap(ImageCodec.inspect(data("p3.png")).metadata.iccProfile)
        XCTAssertEqual(try ImageCodec.inspect(data("p3.heic")).metadata.iccProfile, profile)
        XCTAssertEqual(try ImageCodec.inspect(data("avif.avif")).metadata.iccProfile, nil, "sRGB's nclx needs none")
    }

    func testAnNCLXBoxWithP3PrimariesConvertsAsTheP3ProfileDoes() throws {
        let nclx = try ImageCodec.inspect(data("nclx-p3.avif"))
        XCTAssertNotNil(nclx.metadata.iccProfile, "a profile made from the nclx box")
        let byBox = try ImageCodec.decode(data("nclx-p3.avif"), options: DecodeOptions(toSRGB: true))
        let byProfile = try ImageCodec.decode(data("p3.heic"), options: DecodeOptions(toSRGB: true))
        XCTAssertTrue(byBox.isConverted && byProfile.isConverted)
        let unconverted = try ImageCodec.decode(data("nclx-p3.avif"), options: DecodeOptions())
        let converted = psnr(byBox.image, byProfile.image), left = psnr(unconverted.image, byProfile.image)
        XCTAssertGreaterThanOrEqual(converted, 36, "the same colours, two codecs apart")
        XCTAssertGreaterThan(converted, left + 3, "converted by the box as by the profile, not left as P3 (\(left) dB)")
    }

    func testShrinkOnLoadAndStopsBetweenBands() throws {
        for name in ["heic.heic", "avif.avif", "tiff8.tif", "tiled16.tif", "gif.gif"] {
            let decoded = try ImageCodec.decode(data(name), options: DecodeOptions(reduceTo: ImageSize(width: 96, height: 64)))
            XCTAssertTrue(decoded.isReduced, name)
            XCTAssertEqual([decoded.image.width, decoded.image.height], [96, 64], name)
        }
        var asked = 0
        XCTAssertThrowsError(try ImageCodec.decode(data("tiff8.tif"), options: DecodeOptions(), shouldStop: {
            asked += 1
            return asked == 2
        })) { XCTAssertTrue($0 is DecodeStopped, "\($0)") }
        XCTAssertEqual(asked, 2, "asked again after the first band")
    }

    func testHostileFilesFailWithAReasonNamingTheFormat() throws {
        let directory = try hostileFiles()
        let huge = try Data(contentsOf: directory.appendingPathComponent("huge.heic"))
        let tooLarge = assertCodecError(.tooLarge, try ImageCodec.decode(huge, options: DecodeOptions()))
        XCTAssertTrue(tooLarge?.message.contains("HEIF") == true, tooLarge?.message ?? "")
        XCTAssertTrue(tooLarge?.message.contains("40000") == true, tooLarge?.message ?? "")

        // grid-of-itself.heic (533 bytes, found by the fuzzer): a 1x1 grid whose one tile is the
        // grid; libheif 1.15 decodes a grid's tiles by recursion until the thread's stack runs out
        // and the process dies. Refused from its item references before libheif reads it, as is
        // a chain of derived images deeper than real files have.
        let loop = try fixture("grid-of-itself.heic")
        XCTAssertEqual(assertCodecError(.corrupt, try ImageCodec.decode(loop, options: DecodeOptions()))?.message,
                       "HEIF container is corrupt: item 2 is made from itself (its image items refer to one another in a loop)")
        XCTAssertEqual(assertCodecError(.corrupt, try ImageCodec.inspect(loop))?.kind, .corrupt, "the header is refused too")
        // The same with a reference that claims 7.9 MB: libheif reads references one after
        // another whatever each claims, and so must the check.
        XCTAssertEqual(assertCodecError(.corrupt, try ImageCodec.decode(fixture("grid-of-itself-unsized.heic")))?.message,
                       "HEIF container is corrupt: item 2 is made from itself (its image items refer to one another in a loop)")
        // grid-canvas-3gb.heic (533 bytes, found by the fuzzer): a grid item whose ispe says 16x8
        // but whose ImageGrid names a 27256x27747 canvas, which libheif allocates whole (3 GB).
        let canvas = try fixture("grid-canvas-3gb.heic")
        XCTAssertEqual(assertCodecError(.corrupt, try ImageCodec.decode(canvas, options: DecodeOptions()))?.message,
                       "HEIF container is corrupt: its grid item 2 claims a 27256x27747 canvas, larger than the image it makes")
        XCTAssertEqual(assertCodecError(.corrupt, try ImageCodec.inspect(canvas))?.kind, .corrupt, "refused before the memory budget reads it")
        let deep = try Data(contentsOf: directory.appendingPathComponent("deep.heic"))
        XCTAssertEqual(assertCodecError(.unsupportedFormat, try ImageCodec.decode(deep, options: DecodeOptions()))?.message,
                       "HEIF container nests derived images more than 8 deep under its primary item 1")

        let truncated = try Data(contentsOf: directory.appendingPathComponent("truncated.avif"))
        XCTAssertEqual(ImageCodec.sniff(truncated), .avif)
        let corrupt = assertCodecError(.corrupt, try ImageCodec.decode(truncated, options: DecodeOptions()))
        XCTAssertTrue(corrupt?.message.contains("AVIF") == true, corrupt?.message ?? "")

        let bomb = try Data(contentsOf: directory.appendingPathComponent("bomb.tif"))
        XCTAssertLessThan(bomb.count, 1 << 20)
        let header = try ImageCodec.inspect(bomb)
        XCTAssertGreaterThanOrEqual(header.decoderScratchBytes, 9000 * 9000 * 3, "the whole strip is counted")
        let capped = assertCodecError(.tooLarge, try ImageCodec.decode(bomb, options: DecodeOptions(maxPixels: 50_000_000)))
        XCTAssertTrue(capped?.message.contains("9000x9000") == true, capped?.message ?? "")

        var gif = try data("gif.gif")
        gif = gif.prefix(gif.count / 2)
        let cut = assertCodecError(.corrupt, try ImageCodec.decode(gif, options: DecodeOptions()))
        XCTAssertTrue(cut?.message.contains("GIF") == true, cut?.message ?? "")
    }

    /// Eight layers of 150 items, each made from every item of the next: 150^7 chains from the
    /// primary item, each 7 deep. The check finds each item's depth once, so the file passes it
    /// at once and reaches libheif (which finds no image properties).
    func testAWideDAGOfDerivedImagesIsCheckedOnceAnItem() throws {
        func box(_ type: String, _ body: Data) -> Data {
            var out = Data()
            withUnsafeBytes(of: UInt32(8 + body.count).bigEndian) { out.append(contentsOf: $0) }
            return out + Data(type.utf8) + body
        }
        func u16(_ v: Int) -> Data { withUnsafeBytes(of: UInt16(v).bigEndian) { Data($0) } }
        var references = Data()
        let width = 150, layers = 8
        for layer in 0..<(layers - 1) {
            for item in 0..<width {
                var body = u16(2 + layer * width + item) + u16(width)
                for next in 0..<width { body += u16(2 + (layer + 1) * width + next) }
                references += box("dimg", body)
            }
        }
        var root = u16(1) + u16(width)
        for item in 0..<width { root += u16(2 + item) }
        references = box("dimg", root) + references
        let meta = box("meta", Data(count: 4) + box("pitm", Data(count: 4) + u16(1)) + box("iref", Data(count: 4) + references))
        let file = box("ftyp", Data("heic".utf8) + Data(count: 4) + Data("mif1heic".utf8)) + meta
        let error = assertCodecError(.corrupt, try ImageCodec.decode(file, options: DecodeOptions()))
        XCTAssertTrue(error?.message.hasPrefix("HEIF container is unreadable") == true, error?.message ?? "")

        // More references than any grid has (17 x 65,535, a file of 2 MB) are refused, not held.
        var many = Data()
        for entry in 0..<17 { many += box("dimg", u16(1 + entry) + u16(65_535) + Data(count: 2 * 65_535)) }
        let crowded = box("ftyp", Data("heic".utf8) + Data(count: 4) + Data("mif1heic".utf8))
            + box("meta", Data(count: 4) + box("pitm", Data(count: 4) + u16(1)) + box("iref", Data(count: 4) + many))
        XCTAssertEqual(assertCodecError(.tooLarge, try ImageCodec.decode(crowded, options: DecodeOptions()))?.message,
                       "HEIF container names more than 1048576 image references, or there is no memory to read them")
    }

    func testAVIFWrittenHereKeepsAlphaAndMetadata() throws {
        let image = makeImage(width: 67, height: 41, alpha: true)
        let profile = try fixture("srgb.icc")
        let exif = Exif.minimal(orientation: .up, artist: "Ada")!
        let xmp = Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        var options = EncodeOptions(quality: 90, iccProfile: profile, exif: exif, xmp: xmp)
        options.speed = 9
        let avif = try ImageCodec.encode(image, as: .avif, options: options)
        XCTAssertEqual(ImageCodec.sniff(avif), .avif)
        let header = try ImageCodec.inspect(avif)
        XCTAssertEqual([header.width, header.height], [67, 41])
        XCTAssertEqual(header.metadata.iccProfile, profile)
        XCTAssertEqual(header.metadata.exif.map(Exif.rights(in:))?.artist, "Ada")
        XCTAssertEqual(header.metadata.xmp, xmp)
        let decoded = try ImageCodec.decode(avif, options: DecodeOptions()).image
        XCTAssertLessThan(meanAbsoluteRGBError(image, decoded), 6)
        let alphaError = (0..<image.pixelCount).map { abs(Int(image.pixels[$0 * 4 + 3]) - Int(decoded.pixels[$0 * 4 + 3])) }.max() ?? 255
        XCTAssertLessThanOrEqual(alphaError, 24, "alpha kept")
        assertCodecError(.encodeFailed, try ImageCodec.encode(image, as: .heif))
    }

    /// PSNR over RGB, optionally over the pixels `a` has opaque only.
    private func psnr(_ a: RGBAImage, _ b: RGBAImage, skippingTransparent: Bool = false) -> Double {
        guard a.width == b.width, a.height == b.height else { return 0 }
        var total = 0.0, count = 0
        for i in 0..<a.pixelCount where !skippingTransparent || a.pixels[i * 4 + 3] == 255 {
            for c in 0..<3 {
                let d = Double(Int(a.pixels[i * 4 + c]) - Int(b.pixels[i * 4 + c]))
                total += d * d
            }
            count += 3
        }
        guard count > 0 else { return 0 }
        return total == 0 ? 99 : 10 * log10(255 * 255 / (total / Double(count)))
    }
}
