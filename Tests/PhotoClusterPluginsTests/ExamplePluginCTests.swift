import Foundation
import PhotoClusterCore
import PhotoClusterPlugins
import PhotoClusterTestSupport
import XCTest

/// The C example plugin's filters: in place, with parameters, an error path and cancellation.
final class ExamplePluginCTests: XCTestCase {
    var directory: URL!
    var registry = FilterRegistry([SepiaFilter()])

    override func setUpWithError() throws {
        directory = Repository.temporaryDirectory("plugin-c")
        try BuiltPlugins.copy([BuiltPlugins.cProduct], into: directory)
        XCTAssertEqual(PluginLoader.load(directory: directory, into: &registry).refused, [])
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    func run(_ spec: String, on image: RGBAImage, isCancelled: () -> Bool = { false }) throws -> RGBAImage {
        let filter = try registry.resolve(spec)
        return try filter.stage.apply(to: image, parameters: filter.parameters, isCancelled: isCancelled)
    }

    func testInvertComplementsColoursInPlaceAndKeepsAlpha() throws {
        let image = TestImages.varied()
        let expected = TestImages.mapped(image) { x, y in
            let p = image[x, y]
            return [255 - p.r, 255 - p.g, 255 - p.b, p.a]
        }
        let result = try run("invert", on: image)
        XCTAssertTrue(result === image, "invert works in place")
        XCTAssertEqual(TestImages.bytes(result), expected)
    }

    func testThresholdSplitsByLumaAtTheLevel() throws {
        for level in [0, 1, 100, 128, 255] {
            let image = TestImages.varied(seed: UInt32(level + 7))
            let expected = TestImages.mapped(image) { x, y in
                let p = image[x, y]
                // Rec. 601 luma rounded half up, in integers to avoid rounding doubts.
                let luma = (299 * Int(p.r) + 587 * Int(p.g) + 114 * Int(p.b) + 500) / 1000
                let value: UInt8 = luma >= level ? 255 : 0
                return [value, value, value, p.a]
            }
            let result = try run("threshold:level=\(level)", on: image)
            XCTAssertEqual(TestImages.bytes(result), expected, "level \(level)")
        }
    }

    func testThresholdDefaultLevelIs128() throws {
        let a = TestImages.varied(), b = TestImages.varied()
        XCTAssertEqual(TestImages.bytes(try run("threshold", on: a)), TestImages.bytes(try run("threshold:level=128", on: b)))
    }

    func testAPluginErrorFailsThatPhotoWithItsMessage() throws {
        XCTAssertThrowsError(try run("threshold:fail=1", on: TestImages.varied())) { error in
            let failure = error as? FilterFailure
            XCTAssertEqual(failure?.filter, "threshold")
            XCTAssertEqual(failure?.reason, "asked to fail")
        }
        // The stage goes on working for the next photo.
        XCTAssertNoThrow(try run("threshold:fail=0", on: TestImages.varied()))
    }

    func testValuesOutsideTheSchemaNeverReachThePlugin() throws {
        let stage = try XCTUnwrap(registry.stages["threshold"])
        for values in [["level": 300.0, "fail": 0], ["level": 1.5, "fail": 0], ["level": 10, "fail": .nan]] {
            XCTAssertThrowsError(try stage.apply(to: TestImages.varied(), parameters: FilterParameters(values)) { false }) { error in
                XCTAssertTrue((error as? FilterFailure)?.reason.contains("does not fit the plugin's schema") == true, "\(error)")
            }
        }
    }

    func testCancellationCallbackStopsTheFilter() throws {
        let image = TestImages.varied(width: 5, height: 10)
        let before = TestImages.bytes(image)
        var checks = 0
        XCTAssertThrowsError(try run("invert", on: image) {
            checks += 1
            return checks > 3
        }) { error in
            XCTAssertTrue(error is FilterCancelled, "\(error)")
        }
        XCTAssertEqual(checks, 4)
        // invert checks before each row: rows 0-2 were done when the fourth check said stop.
        let after = TestImages.bytes(image)
        let rowBytes = 5 * 4
        XCTAssertEqual(Array(after[(3 * rowBytes)...]), Array(before[(3 * rowBytes)...]))
        XCTAssertEqual(after[0], 255 - before[0])

        XCTAssertThrowsError(try run("threshold", on: TestImages.varied()) { true }) { error in
            XCTAssertTrue(error is FilterCancelled, "\(error)")
        }
    }

    func testConcurrentPhotosDoNotShareCancellation() throws {
        let filter = try registry.resolve("invert")
        let results = LockedResults()
        DispatchQueue.concurrentPerform(iterations: 16) { n in
            let image = TestImages.varied(width: 64, height: 64, seed: UInt32(n))
            let expected = TestImages.bytes(image).enumerated().map { $0.offset % 4 == 3 ? $0.element : 255 - $0.element }
            let cancel = n % 2 == 1
            do {
                let out = try filter.stage.apply(to: image, parameters: filter.parameters) { cancel }
                results.add(!cancel && TestImages.bytes(out) == expected)
            } catch {
                results.add(cancel && error is FilterCancelled)
            }
        }
        XCTAssertEqual(results.values, Array(repeating: true, count: 16))
    }
}

/// Outcomes gathered from concurrent iterations.
/// `@unchecked Sendable`: `values` is only touched while holding `lock`.
final class LockedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Bool] = []

    func add(_ value: Bool) { lock.lock(); stored.append(value); lock.unlock() }
    var values: [Bool] { lock.lock(); defer { lock.unlock() }; return stored }
}
