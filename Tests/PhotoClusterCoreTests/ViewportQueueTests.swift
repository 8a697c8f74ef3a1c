import Foundation
import XCTest

@testable import PhotoClusterCore

/// The queue of waiting photos takes them in the planner's order, whatever the viewport, and
/// its bitmap finds members across levels.
final class ViewportQueueTests: XCTestCase {
    func testBitmapFindsTheNearestMemberOnEitherSideAcrossLevels() {
        // 300,000 bits: three levels, so a search climbs and descends through all of them.
        var bitmap = IndexBitmap(capacity: 300_000)
        let members = [0, 63, 64, 4_095, 4_096, 150_001, 299_999]
        for member in members { XCTAssertTrue(bitmap.insert(member)) }
        XCTAssertFalse(bitmap.insert(64), "already there")
        XCTAssertEqual(bitmap.count, members.count)
        XCTAssertEqual(bitmap.first(atOrAbove: 1), 63)
        XCTAssertEqual(bitmap.first(atOrAbove: 65), 4_095)
        XCTAssertEqual(bitmap.first(atOrAbove: 4_097), 150_001)
        XCTAssertEqual(bitmap.first(atOrAbove: 150_002), 299_999)
        XCTAssertNil(bitmap.first(atOrAbove: 300_000))
        XCTAssertEqual(bitmap.last(atOrBelow: 299_998), 150_001)
        XCTAssertEqual(bitmap.last(atOrBelow: 150_000), 4_096)
        XCTAssertEqual(bitmap.last(atOrBelow: 62), 0)
        XCTAssertEqual(bitmap.count(in: 60...4_095), 3)
        XCTAssertTrue(bitmap.remove(4_096))
        XCTAssertFalse(bitmap.remove(4_096), "already gone")
        XCTAssertEqual(bitmap.last(atOrBelow: 150_000), 4_095)
        for member in members where member != 4_096 { bitmap.remove(member) }
        XCTAssertTrue(bitmap.isEmpty)
        XCTAssertNil(bitmap.first(atOrAbove: 0), "emptied words leave the summaries too")
        XCTAssertNil(bitmap.last(atOrBelow: 299_999))
    }

    func testBitmapAgreesWithASetUnderRandomChanges() {
        var generator = SeededRandom(seed: 27)
        var bitmap = IndexBitmap(capacity: 10_000)
        var reference = Set<Int>()
        for _ in 0..<2_500 {
            let value = Int.random(in: 0..<10_000, using: &generator)
            if Bool.random(using: &generator) {
                XCTAssertEqual(bitmap.insert(value), reference.insert(value).inserted)
            } else {
                XCTAssertEqual(bitmap.remove(value), reference.remove(value) != nil)
            }
            let probe = Int.random(in: 0..<10_000, using: &generator)
            XCTAssertEqual(bitmap.first(atOrAbove: probe), reference.filter { $0 >= probe }.min())
            XCTAssertEqual(bitmap.last(atOrBelow: probe), reference.filter { $0 <= probe }.max())
        }
        XCTAssertEqual(bitmap.count, reference.count)
    }

    func testTheQueueTakesPhotosInThePlannersOrderForAnyViewport() {
        var generator = SeededRandom(seed: 28)
        for runsEverything in [false, true] {
            var queue = ViewportQueue(planner: ViewportPlanner(count: 500, viewport: Viewport(visible: 0...9), runsEverything: runsEverything))
            var waiting = Set<Int>()
            for _ in 0..<300 {
                let index = Int.random(in: 0..<500, using: &generator)
                if waiting.insert(index).inserted { queue.insert(index) }
            }
            for _ in 0..<50 {
                let start = Int.random(in: 0..<495, using: &generator)
                let length = Int.random(in: 0...12, using: &generator)
                let viewport = Viewport(visible: start...min(499, start + length), prefetch: Int.random(in: 0...6, using: &generator))
                let planner = ViewportPlanner(count: 500, viewport: viewport, runsEverything: runsEverything)
                queue.follow(planner)
                let expected = planner.order(waiting.filter(planner.wants))
                XCTAssertEqual(queue.ordered(), expected, "\(viewport), runs everything: \(runsEverything)")
                XCTAssertEqual(queue.wantedCount, expected.count)
            }
        }
    }

    func testAWalkStaysValidWhilePhotosItPassedAreTaken() {
        var queue = ViewportQueue(planner: ViewportPlanner(count: 20, viewport: Viewport(visible: 10...11, prefetch: 2), runsEverything: false))
        for index in 0..<20 { queue.insert(index) }
        var walk = queue.walk()
        var taken: [Int] = []
        while let index = queue.next(&walk) {
            // Take every other photo, as a dispatcher refusing some would.
            if taken.count % 2 == 0 || index % 2 == 0 { queue.remove(index) }
            taken.append(index)
        }
        XCTAssertEqual(taken, [10, 11, 9, 12, 8, 13], "visible, then prefetch, nearer the centre first")
        XCTAssertEqual(queue.count, 20 - 4, "two photos refused stay queued")
    }
}
