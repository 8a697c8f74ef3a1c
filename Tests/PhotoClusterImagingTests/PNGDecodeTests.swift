import PhotoClusterCore
import PhotoClusterImaging
import XCTest

/// Every PNG colour type and bit depth decodes to the values the fixture was written with.
final class PNGDecodeTests: XCTestCase {
    private func decode(_ name: String) throws -> RGBAImage {
        let (image, format) = try ImageCodec.decode(fixture(name))
        XCTAssertEqual(format, .png)
        XCTAssertEqual(image.width, Expected.width)
        XCTAssertEqual(image.height, Expected.height)
        return image
    }

    private func forEachPixel(_ body: (_ x: Int, _ y: Int, _ i: Int) -> Void) {
        for y in 0..<Expected.height {
            for x in 0..<Expected.width { body(x, y, y * Expected.width + x) }
        }
    }

    func testGray1Bit() throws {
        let image = try decode("gray1.png")
        forEachPixel { x, y, i in
            let v = Expected.bits[i] * 255
            assertPixel(image, x, y, (v, v, v, 255))
        }
    }

    func testGray8And16Bit() throws {
        for name in ["gray8.png", "gray16.png"] {
            let image = try decode(name)
            forEachPixel { x, y, i in
                let v = Expected.gray[i]
                assertPixel(image, x, y, (v, v, v, 255))
            }
        }
    }

    func testGrayAlpha() throws {
        let image = try decode("gray-alpha8.png")
        forEachPixel { x, y, i in
            let v = Expected.gray[i]
            assertPixel(image, x, y, (v, v, v, Expected.alpha[i]))
        }
    }

    func testRGB8And16Bit() throws {
        for name in ["rgb8.png", "rgb16.png", "palette8.png"] {
            let image = try decode(name)
            forEachPixel { x, y, i in
                let c = Expected.rgb[i]
                assertPixel(image, x, y, (c.0, c.1, c.2, 255))
            }
        }
    }

    func testRGBA8And16BitAndPaletteWithTRNS() throws {
        for name in ["rgba8.png", "rgba16.png", "palette4-trns.png"] {
            let image = try decode(name)
            forEachPixel { x, y, i in
                let c = Expected.rgb[i]
                assertPixel(image, x, y, (c.0, c.1, c.2, Expected.alpha[i]))
            }
        }
    }
}
