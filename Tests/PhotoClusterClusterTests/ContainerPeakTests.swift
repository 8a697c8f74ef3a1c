import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import XCTest

@testable import PhotoClusterWorker

/// The memory budget's figures for the container formats: what their headers say the decoder
/// holds is spread over the source's pixels, and an AVIF encode is counted at its measured size.
final class ContainerPeakTests: XCTestCase {
    func testTheDecodersOwnBytesComeFromTheHeader() {
        var heif = ImageHeader(format: .heif, width: 4032, height: 3024)
        heif.decoderScratchBytes = 4032 * 3024 * 10
        XCTAssertEqual(PhotoPeak.decoderBytesPerPixel(Data(), header: heif), 10)
        // A TIFF bomb: one 243 MB strip over 81 megapixels, rounded up.
        var bomb = ImageHeader(format: .tiff, width: 9000, height: 9000)
        bomb.decoderScratchBytes = 9000 * 9000 * 3 + 9000 * 9000 * 4
        XCTAssertEqual(PhotoPeak.decoderBytesPerPixel(Data(), header: bomb), 7)
        bomb.decoderScratchBytes += 1
        XCTAssertEqual(PhotoPeak.decoderBytesPerPixel(Data(), header: bomb), 8)
        // The formats PhotoCluster parses itself keep their own reckoning.
        XCTAssertEqual(PhotoPeak.decoderBytesPerPixel(Data([0xFF, 0xD8]), header: ImageHeader(format: .jpeg, width: 10, height: 10)), 0)
    }

    func testAnAVIFEncodeIsCountedAtItsMeasuredSize() {
        let size = ImageSize(width: 4032, height: 3024)
        let avif = PhotoPeak.encoderBytes(for: size, format: .avif, lossless: false, fused: false)
        XCTAssertGreaterThan(avif, 4032 * 3024 * 24, "above the 23.6 bytes a pixel measured")
        XCTAssertGreaterThan(avif, PhotoPeak.encoderBytes(for: size, format: .webp, lossless: false, fused: false))
    }
}
