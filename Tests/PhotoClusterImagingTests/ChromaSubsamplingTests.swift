import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterTestSupport
import XCTest

/// JPEG chroma subsampling as written in the frame header (SOF0: each component's sampling
/// factors), and what it does to a colour edge.
final class ChromaSubsamplingTests: XCTestCase {
    private func lumaSampling(_ jpeg: Data) throws -> [Int] {
        try XCTUnwrap(JPEGSampling.lumaFactors(jpeg), "a frame header")
    }

    func testAutomaticIs420UpToQuality90And444Above() throws {
        let image = makeImage(width: 64, height: 48, alpha: false)
        XCTAssertEqual(try lumaSampling(ImageCodec.encode(image, as: .jpeg, quality: 90)), [2, 2])
        XCTAssertEqual(try lumaSampling(ImageCodec.encode(image, as: .jpeg, quality: 91)), [1, 1])
        XCTAssertEqual(try lumaSampling(ImageCodec.encode(image, as: .jpeg, options: EncodeOptions(quality: 95, chroma: .s420))), [2, 2])
        XCTAssertEqual(try lumaSampling(ImageCodec.encode(image, as: .jpeg, options: EncodeOptions(quality: 50, chroma: .s444))), [1, 1])
        XCTAssertEqual(try lumaSampling(ImageCodec.encode(image, as: .jpeg, options: EncodeOptions(quality: 95, chroma: .s422))), [2, 1])
    }

    /// 4:2:2 halves colour across only: one-pixel red and blue rows keep their colour, one-pixel
    /// columns do not (4:2:0 loses both).
    func testFourTwoTwoKeepsColourDetailDownButNotAcross() throws {
        func stripes(rows: Bool) -> RGBAImage {
            let image = RGBAImage(width: 32, height: 32)!
            for p in 0..<(32 * 32) {
                let red = (rows ? p / 32 : p % 32) % 2 == 0
                image.pixels[p * 4] = red ? 255 : 0
                image.pixels[p * 4 + 2] = red ? 0 : 255
                image.pixels[p * 4 + 3] = 255
            }
            return image
        }
        func redAtCentre(_ image: RGBAImage, _ chroma: ChromaSubsampling) throws -> Int {
            let decoded = try ImageCodec.decode(ImageCodec.encode(image, as: .jpeg, options: EncodeOptions(quality: 95, chroma: chroma))).image
            return Int(decoded.pixels[(16 * 32 + 16) * 4])
        }
        XCTAssertGreaterThan(try redAtCentre(stripes(rows: true), .s422), 200, "rows keep their colour")
        XCTAssertLessThan(try redAtCentre(stripes(rows: false), .s422), 180, "columns are averaged")
        XCTAssertLessThan(try redAtCentre(stripes(rows: true), .s420), 180, "4:2:0 averages rows too")
    }

    /// One-pixel red and blue columns: 4:2:0 averages their colour into purple, 4:4:4 keeps them.
    func testFourFourFourKeepsOnePixelColourDetail() throws {
        let image = RGBAImage(width: 32, height: 32)!
        for p in 0..<(32 * 32) {
            let red = (p % 32) % 2 == 0
            image.pixels[p * 4] = red ? 255 : 0
            image.pixels[p * 4 + 1] = 0
            image.pixels[p * 4 + 2] = red ? 0 : 255
            image.pixels[p * 4 + 3] = 255
        }
        func redOfFirstColumn(_ chroma: ChromaSubsampling) throws -> Int {
            let decoded = try ImageCodec.decode(ImageCodec.encode(image, as: .jpeg, options: EncodeOptions(quality: 95, chroma: chroma))).image
            return Int(decoded.pixels[(16 * 32 + 16) * 4])
        }
        XCTAssertGreaterThan(try redOfFirstColumn(.s444), 200)
        XCTAssertLessThan(try redOfFirstColumn(.s420), 180)
    }
}
