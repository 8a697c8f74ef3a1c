import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import XCTest

/// JPEG chroma subsampling as written in the frame header (SOF0: each component's sampling
/// factors), and what it does to a colour edge.
final class ChromaSubsamplingTests: XCTestCase {
    /// The luma component's horizontal and vertical sampling factors: 2×2 means 4:2:0, 1×1 4:4:4.
    private func lumaSampling(_ jpeg: Data) throws -> [Int] {
        let bytes = [UInt8](jpeg)
        var i = 2
        while i + 4 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1], length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if marker == 0xC0 || marker == 0xC1 || marker == 0xC2 {
                let factors = bytes[i + 11]  // after length, precision, height, width, count, component id
                return [Int(factors >> 4), Int(factors & 15)]
            }
            i += 2 + length
        }
        throw XCTSkip("no frame header found")
    }

    func testAutomaticIs420UpToQuality90And444Above() throws {
        let image = makeImage(width: 64, height: 48, alpha: false)
        XCTAssertEqual(try lumaSampling(ImageCodec.encode(image, as: .jpeg, quality: 90)), [2, 2])
        XCTAssertEqual(try lumaSampling(ImageCodec.encode(image, as: .jpeg, quality: 91)), [1, 1])
        XCTAssertEqual(try lumaSampling(ImageCodec.encode(image, as: .jpeg, options: EncodeOptions(quality: 95, chroma: .s420))), [2, 2])
        XCTAssertEqual(try lumaSampling(ImageCodec.encode(image, as: .jpeg, options: EncodeOptions(quality: 50, chroma: .s444))), [1, 1])
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
