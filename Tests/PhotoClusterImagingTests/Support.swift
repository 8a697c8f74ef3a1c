import Foundation
import PhotoClusterCore
import PhotoClusterImaging
import XCTest

/// The pixel tables the fixtures were made from (see Fixtures/make-fixtures.py); 4x3, row by row.
enum Expected {
    static let width = 4, height = 3
    static let rgb: [(UInt8, UInt8, UInt8)] = [
        (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255),
        (0, 0, 0), (128, 64, 32), (10, 20, 30), (200, 150, 100),
        (1, 2, 3), (254, 253, 252), (0, 128, 255), (77, 88, 99),
    ]
    static let gray: [UInt8] = [0, 17, 34, 51, 68, 85, 102, 119, 136, 153, 255, 128]
    static let alpha: [UInt8] = [255, 0, 128, 1, 254, 64, 32, 200, 100, 255, 0, 50]
    static let bits: [UInt8] = [0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0]
    /// CMYK (30, 120, 200, 40) as RGB.
    static let cmykAsRGB: (UInt8, UInt8, UInt8) = (190, 114, 46)
}

func fixture(_ name: String) throws -> Data {
    let url = Bundle.module.url(
        forResource: (name as NSString).deletingPathExtension,
        withExtension: (name as NSString).pathExtension,
        subdirectory: "Fixtures")
    return try Data(contentsOf: XCTUnwrap(url, "missing fixture \(name)"))
}

/// Asserts that `body` throws an `ImageCodecError` of `kind`, and returns it.
@discardableResult
func assertCodecError<T>(
    _ kind: ImageCodecError.Kind, _ body: @autoclosure () throws -> T,
    file: StaticString = #filePath, line: UInt = #line
) -> ImageCodecError? {
    do {
        _ = try body()
        XCTFail("expected a \(kind) error, got success", file: file, line: line)
    } catch let error as ImageCodecError {
        XCTAssertEqual(error.kind, kind, "\(error)", file: file, line: line)
        XCTAssertFalse(error.message.isEmpty, file: file, line: line)
        return error
    } catch {
        XCTFail("expected ImageCodecError, got \(error)", file: file, line: line)
    }
    return nil
}

/// Asserts every channel of the pixel at (x, y) is within `tolerance` of the expected one.
func assertPixel(
    _ image: RGBAImage, _ x: Int, _ y: Int, _ expected: (UInt8, UInt8, UInt8, UInt8), tolerance: Int = 0,
    file: StaticString = #filePath, line: UInt = #line
) {
    let p = image[x, y]
    let got = [p.r, p.g, p.b, p.a], want = [expected.0, expected.1, expected.2, expected.3]
    let ok = zip(got, want).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
    XCTAssertTrue(ok, "pixel (\(x), \(y)) is \(got), expected \(want) ±\(tolerance)", file: file, line: line)
}

/// A deterministic test image: smooth gradients, plus per-pixel alpha when `alpha` is true.
func makeImage(width: Int, height: Int, alpha: Bool) -> RGBAImage {
    let image = RGBAImage(width: width, height: height)!
    for y in 0..<height {
        for x in 0..<width {
            let p = image.pixels + (y * width + x) * 4
            p[0] = UInt8(x * 255 / max(1, width - 1))
            p[1] = UInt8(y * 255 / max(1, height - 1))
            p[2] = UInt8((x + y) * 255 / max(1, width + height - 2))
            p[3] = alpha ? UInt8((x * 7 + y * 13) % 256) : 255
        }
    }
    return image
}

/// Mean absolute difference over the RGB channels of two same-sized images.
func meanAbsoluteRGBError(_ a: RGBAImage, _ b: RGBAImage) -> Double {
    precondition(a.width == b.width && a.height == b.height)
    var total = 0
    for i in 0..<a.pixelCount {
        for c in 0..<3 { total += abs(Int(a.pixels[i * 4 + c]) - Int(b.pixels[i * 4 + c])) }
    }
    return Double(total) / Double(a.pixelCount * 3)
}

