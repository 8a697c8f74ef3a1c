import Foundation
import PhotoClusterTransport
import XCTest

final class RoutingIdentityTests: XCTestCase {
    func testACurveWorkersIDIsItsNameAndASecretNewEachTime() throws {
        let first = RoutingIdentity.worker(named: "wc", secret: true), second = RoutingIdentity.worker(named: "wc", secret: true)
        XCTAssertNotEqual(first, second)
        let text = try XCTUnwrap(String(data: first, encoding: .utf8))
        XCTAssertTrue(text.hasPrefix("wc/"), text)
        XCTAssertEqual(text.count, 3 + 32, text)
        XCTAssertEqual(RoutingIdentity.workerName(of: first), "wc")
        XCTAssertEqual(RoutingIdentity.workerName(of: RoutingIdentity.worker(named: "rack/3 é", secret: true)), "rack/3 é")
    }

    func testAnIDWithoutASecretIsTheWholeName() {
        XCTAssertEqual(RoutingIdentity.worker(named: "wc", secret: false), Data("wc".utf8))
        XCTAssertEqual(RoutingIdentity.workerName(of: Data("wc".utf8)), "wc")
        // Not 32 lowercase hex digits after the slash: all name.
        XCTAssertEqual(RoutingIdentity.workerName(of: Data("a/\(String(repeating: "0", count: 31))".utf8)), "a/\(String(repeating: "0", count: 31))")
        XCTAssertEqual(RoutingIdentity.workerName(of: Data("a/\(String(repeating: "G", count: 32))".utf8)), "a/\(String(repeating: "G", count: 32))")
        XCTAssertNil(RoutingIdentity.workerName(of: Data([0xFF, 0xFE])))
    }

    func testAClientsIDIsSixteenRandomBytesNotStartingWithZero() {
        let ids = (0..<200).map { _ in RoutingIdentity.client() }
        XCTAssertEqual(Set(ids).count, 200)
        XCTAssertTrue(ids.allSatisfy { $0.count == 16 && $0.first != 0 })
    }
}
