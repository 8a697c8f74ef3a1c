import Foundation
import XCTest

@testable import PhotoClusterCore

final class ViewportPlannerTests: XCTestCase {
    func testBandsAndOrder() {
        let plan = ViewportPlanner(count: 20, viewport: Viewport(visible: 10...11, prefetch: 2), runsEverything: false)
        XCTAssertEqual(plan.band(of: 10), .visible)
        XCTAssertEqual(plan.band(of: 8), .prefetch)
        XCTAssertEqual(plan.band(of: 13), .prefetch)
        XCTAssertEqual(plan.band(of: 14), .background)
        XCTAssertFalse(plan.wants(14), "viewport mode does not start photos out of view")
        XCTAssertEqual(plan.order(Array(0..<20)).prefix(6), [10, 11, 9, 12, 8, 13])
        let batch = ViewportPlanner(count: 20, viewport: Viewport(visible: 10...11, prefetch: 2), runsEverything: true)
        XCTAssertTrue(batch.wants(0), "batch mode runs the rest in the lowest band")
        XCTAssertEqual(Array(batch.order(Array(0..<20)).suffix(2)), [1, 0], "farthest from the centre last")
    }

    func testInterestIsClippedToTheJob() {
        XCTAssertEqual(Viewport(visible: 0...2, prefetch: 5).interest(count: 4), 0...3)
        XCTAssertEqual(Viewport.everything(count: 7).visible, 0...6)
    }

    func testShippedTracesParse() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("samples/scroll")
        for name in ["slow-read.trace", "fast-fling.trace"] {
            let events = try ScrollTrace.parse(contentsOf: folder.appendingPathComponent(name))
            XCTAssertGreaterThan(events.count, 50, name)
            XCTAssertTrue(events.allSatisfy { $0.visible.upperBound < 500 }, name)
            XCTAssertTrue(events.contains { $0.scrolling } && events.contains { !$0.scrolling }, name)
        }
    }

    func testTraceErrorsNameTheLine() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID()).trace")
        try "# ok\n0 0 9 0\n10 5 2 1\n".write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        XCTAssertThrowsError(try ScrollTrace.parse(contentsOf: url)) { error in
            XCTAssertTrue("\(error)".contains("line 3"), "\(error)")
        }
        try "20 0 9 0\n10 0 9 1\n".write(to: url, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ScrollTrace.parse(contentsOf: url)) { error in
            XCTAssertTrue("\(error)".contains("backwards"), "\(error)")
        }
    }
}
