import Foundation
import PhotoClusterCore
import PhotoClusterPlugins
import PhotoClusterTestSupport
import XCTest

/// The Swift example plugin: a filter that returns a new, plugin-allocated image.
final class ExamplePluginSwiftTests: XCTestCase {
    var directory: URL!
    var registry = FilterRegistry([SepiaFilter()])

    override func setUpWithError() throws {
        directory = Repository.temporaryDirectory("plugin-swift")
        try BuiltPlugins.copy([BuiltPlugins.swiftProduct], into: directory)
        XCTAssertEqual(PluginLoader.load(directory: directory, into: &registry).refused, [])
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    func run(_ spec: String, on image: RGBAImage, isCancelled: () -> Bool = { false }) throws -> RGBAImage {
        let filter = try registry.resolve(spec)
        return try filter.stage.apply(to: image, parameters: filter.parameters, isCancelled: isCancelled)
    }

    func testChannelSwapReturnsANewImageWithRedAndBlueSwapped() throws {
        let image = TestImages.varied()
        let before = TestImages.bytes(image)
        let expected = TestImages.mapped(image) { x, y in
            let p = image[x, y]
            return [p.b, p.g, p.r, p.a]
        }
        let result = try run("channel-swap", on: image)
        XCTAssertFalse(result === image, "channel-swap writes a new image")
        XCTAssertEqual(result.width, image.width)
        XCTAssertEqual(result.height, image.height)
        XCTAssertEqual(TestImages.bytes(result), expected)
        XCTAssertEqual(TestImages.bytes(image), before, "the input is left as it was")
    }

    func testMirrorAlsoFlipsLeftToRight() throws {
        let image = TestImages.varied(width: 6, height: 3)
        let expected = TestImages.mapped(image) { x, y in
            let p = image[image.width - 1 - x, y]
            return [p.b, p.g, p.r, p.a]
        }
        XCTAssertEqual(TestImages.bytes(try run("channel-swap:mirror=1", on: image)), expected)
    }

    func testSwappingTwiceGivesTheOriginalBack() throws {
        let image = TestImages.varied(width: 31, height: 17)
        let twice = try run("channel-swap", on: try run("channel-swap", on: image))
        XCTAssertEqual(TestImages.bytes(twice), TestImages.bytes(image))
    }

    func testCancellationCallbackStopsTheFilter() throws {
        var checks = 0
        XCTAssertThrowsError(try run("channel-swap", on: TestImages.varied()) {
            checks += 1
            return checks == 2
        }) { error in
            XCTAssertTrue(error is FilterCancelled, "\(error)")
        }
        XCTAssertEqual(checks, 2)
    }
}
