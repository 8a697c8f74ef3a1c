import XCTest

@testable import PhotoClusterCore

final class BuiltInFiltersTests: XCTestCase {
    func testTheBuiltInNames() {
        XCTAssertEqual(FilterRegistry.builtIn.names, [
            "blur", "brightness", "crop", "flip", "fog", "grayscale", "posterize", "resize", "rotate", "sepia", "sharpen", "thumbnail", "vignette",
        ])
    }

    func testDefaultsResolveAndOutOfRangeValuesAreRefused() throws {
        let registry = FilterRegistry.builtIn
        for descriptor in registry.descriptors {
            // resize and thumbnail resample with a kernel since version 2.
            XCTAssertEqual(descriptor.version, ["resize", "thumbnail"].contains(descriptor.name) ? "2" : "1", descriptor.name)
            XCTAssertFalse(descriptor.summary.isEmpty, descriptor.name)
            let resolved = try registry.resolve(descriptor.name)
            for parameter in descriptor.parameters {
                let label = "\(descriptor.name).\(parameter.key)"
                XCTAssertFalse(parameter.summary.isEmpty, label)
                XCTAssertTrue(parameter.range.contains(parameter.defaultValue), label)
                XCTAssertEqual(resolved.parameters[parameter.key], parameter.defaultValue, label)
                let step = parameter.kind == .double ? 0.001 : 1
                for value in [parameter.range.lowerBound, parameter.range.upperBound] {
                    XCTAssertNoThrow(try registry.resolve("\(descriptor.name):\(parameter.key)=\(ConfiguredFilter.format(value))"), label)
                }
                for value in [parameter.range.lowerBound - step, parameter.range.upperBound + step] {
                    let spec = "\(descriptor.name):\(parameter.key)=\(ConfiguredFilter.format(value))"
                    XCTAssertThrowsError(try registry.resolve(spec), spec) { error in
                        XCTAssertTrue(error is FilterSpecError, "\(error)")
                    }
                }
                if parameter.kind == .int {
                    XCTAssertThrowsError(try registry.resolve("\(descriptor.name):\(parameter.key)=1.5"), label)
                }
            }
        }
    }

    func testEveryFilterHonoursCancellation() throws {
        for name in FilterRegistry.builtIn.names {
            let image = FilterTesting.randomImage(width: 5, height: 3)
            XCTAssertThrowsError(try FilterTesting.run(name == "resize" ? "resize:width=3,height=3" : name, on: image) { true }, name) { error in
                XCTAssertTrue(error is FilterCancelled, "\(name): \(error)")
            }
        }
    }

    func testEveryFilterRunsOnOneAndOddSizedImagesWithItsDefaults() throws {
        for name in FilterRegistry.builtIn.names {
            for (width, height) in [(1, 1), (1, 7), (7, 1), (5, 3)] {
                let spec = name == "resize" ? "resize:width=4,height=4" : name
                let output = try FilterTesting.run(spec, on: FilterTesting.randomImage(width: width, height: height))
                XCTAssertGreaterThan(output.pixelCount, 0, "\(name) on \(width)x\(height)")
            }
        }
    }
}
