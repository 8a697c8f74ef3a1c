import XCTest

@testable import PhotoClusterCore

final class FilterRegistryTests: XCTestCase {
    func testSpecParsing() throws {
        let spec = try FilterSpec(parsing: "Sepia:intensity=0.5")
        XCTAssertEqual(spec.name, "sepia")
        XCTAssertEqual(spec.parameters.map(\.key), ["intensity"])
        XCTAssertThrowsError(try FilterSpec(parsing: ":x=1"))
        XCTAssertThrowsError(try FilterSpec(parsing: "sepia:intensity"))
        XCTAssertThrowsError(try FilterSpec(parsing: "se pia"))
    }

    func testDefaultsAndIdentifier() throws {
        let registry = FilterRegistry.builtIn
        let plain = try registry.resolve("sepia")
        XCTAssertEqual(plain.parameters["intensity"], 0.8)
        XCTAssertEqual(plain.identifier, "sepia@1(intensity=0.8)")
        XCTAssertEqual(try registry.resolve("sepia:intensity=0.80").identifier, plain.identifier)
        XCTAssertEqual(try registry.resolve("sepia:intensity=1").identifier, "sepia@1(intensity=1)")
    }

    func testUnknownFilterListsWhatExists() {
        XCTAssertThrowsError(try FilterRegistry.builtIn.resolve("blurr")) { error in
            XCTAssertTrue("\(error)".contains("unknown filter; available: blur, brightness,"), "\(error)")
        }
    }

    func testBadParametersNameTheRange() {
        XCTAssertThrowsError(try FilterRegistry.builtIn.resolve("sepia:intensity=2")) { error in
            XCTAssertTrue("\(error)".contains("out of range 0…1"), "\(error)")
        }
        XCTAssertThrowsError(try FilterRegistry.builtIn.resolve("sepia:intensity=lots")) { error in
            XCTAssertTrue("\(error)".contains("intensity=lots is not a number (range 0…1)"), "\(error)")
        }
        XCTAssertThrowsError(try FilterRegistry.builtIn.resolve("resize:width=wide")) { error in
            XCTAssertTrue("\(error)".contains("width=wide is not a whole number (range"), "\(error)")
        }
        XCTAssertThrowsError(try FilterRegistry.builtIn.resolve("flip:vertical=maybe")) { error in
            XCTAssertTrue("\(error)".contains("vertical=maybe is not true or false (or 1, 0)"), "\(error)")
        }
        XCTAssertThrowsError(try FilterRegistry.builtIn.resolve("sepia:strength=1")) { error in
            XCTAssertTrue("\(error)".contains("unknown parameter \"strength\"; parameters: intensity"), "\(error)")
        }
        XCTAssertThrowsError(try FilterRegistry.builtIn.resolve("sepia:intensity=nan"))
    }

    func testABadChoiceListsTheChoices() throws {
        XCTAssertThrowsError(try FilterRegistry.builtIn.resolve("resize:width=100,kernel=bogus")) { error in
            XCTAssertTrue("\(error)".contains("kernel=bogus is not one of nearest, linear, cubic, lanczos3"), "\(error)")
        }
        let chosen = try FilterRegistry.builtIn.resolve("resize:width=100,kernel=Cubic")
        XCTAssertEqual(chosen.parameters["kernel"], Double(ResampleKernel.cubic.rawValue))
    }

    func testDuplicateRegistrationIsRefused() {
        var registry = FilterRegistry.builtIn
        XCTAssertThrowsError(try registry.register(SepiaFilter())) { error in
            XCTAssertTrue("\(error)".contains("already registered"), "\(error)")
        }
    }
}
