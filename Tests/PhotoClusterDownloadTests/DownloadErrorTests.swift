import PhotoClusterDownload
import XCTest

final class DownloadErrorTests: XCTestCase {
    func testDefaults() {
        let limits = DownloadLimits()
        XCTAssertEqual(limits.connectTimeout, 5)
        XCTAssertEqual(limits.totalTimeout, 30)
        XCTAssertEqual(limits.maxBytes, 64 << 20)
        XCTAssertEqual(limits.maxRedirects, 5)
        XCTAssertEqual(limits.allowedSchemes, ["http", "https"])
        XCTAssertFalse(limits.policy.allowLoopback)
        XCTAssertEqual(limits.policy.refusal(host: "127.0.0.1"), "127.0.0.1 is a loopback address")
    }

    func testDescriptionNamesMessageAndURL() {
        let error = expectError(fetch("gopher://example.invalid/x"))
        XCTAssertEqual(error?.description, "scheme 'gopher' is not allowed (allowed: http, https) (gopher://example.invalid/x)")
    }
}
