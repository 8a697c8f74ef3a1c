import Foundation
import PhotoClusterTestSupport
import XCTest

/// `cluster plugins` lists a parameter that names its values (a resize's kernel) by the names a
/// filter spec takes, not by the numbers they stand for.
final class PluginsCommandTests: XCTestCase {
    func testTheResampleKernelIsListedByItsNames() throws {
        let text = try CommandRunner.run(["plugins"])
        XCTAssertEqual(text.status, 0, text.stderr)
        let kernels = text.stdout.split(separator: "\n").filter { $0.contains("kernel (") }
        XCTAssertEqual(kernels.count, 2, "resize and thumbnail\n\(text.stdout)")
        for line in kernels {
            XCTAssertTrue(line.hasPrefix("    kernel (one of nearest, linear, cubic, lanczos3, default lanczos3): "), String(line))
        }
        XCTAssertTrue(text.stdout.contains("    sharpen (double, 0…2, default 0): "), "other parameters keep their ranges\n\(text.stdout)")

        let json = try CommandRunner.run(["plugins", "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let listing = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let filters = try XCTUnwrap(listing["filters"] as? [[String: Any]])
        let resize = try XCTUnwrap(filters.first { $0["name"] as? String == "resize" })
        let parameters = try XCTUnwrap(resize["parameters"] as? [[String: Any]])
        let kernel = try XCTUnwrap(parameters.first { $0["key"] as? String == "kernel" })
        XCTAssertEqual(kernel["choices"] as? [String], ["nearest", "linear", "cubic", "lanczos3"])
        XCTAssertEqual(kernel["default_choice"] as? String, "lanczos3")
        let sharpen = try XCTUnwrap(parameters.first { $0["key"] as? String == "sharpen" })
        XCTAssertNil(sharpen["choices"], "a parameter without names has none")
    }
}
