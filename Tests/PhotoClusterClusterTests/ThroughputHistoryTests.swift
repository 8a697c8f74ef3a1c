import Foundation
import PhotoClusterCoordinator
import XCTest

/// The per-second history behind every rate the coordinator reports.
final class ThroughputHistoryTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_000_000)

    private func second(_ n: Double) -> Date { start.addingTimeInterval(n) }

    func testRatesCoverTheirWindowOnly() {
        var history = ThroughputHistory(now: start)
        // 60 seconds at 2 photos/s on w1, then 10 seconds at 6 photos/s split over w1 and w2.
        for s in 0..<60 {
            history.photoSucceeded(job: "a", worker: "w1")
            history.photoSucceeded(job: "a", worker: "w1")
            history.photoSettled(job: "a")
            history.photoSettled(job: "a")
            history.decoded(pixels: 3_000_000, job: "a", worker: "w1")
            history.closeSecond(at: second(Double(s + 1)))
        }
        for s in 60..<70 {
            for worker in ["w1", "w2", "w2", "w2", "w2", "w2"] {
                history.photoSucceeded(job: "b", worker: worker)
                history.photoSettled(job: "b")
            }
            history.closeSecond(at: second(Double(s + 1)))
        }
        let now = second(70)
        let short = history.rates(window: 10, now: now)
        XCTAssertEqual(short.photos, 6, accuracy: 0.01)
        XCTAssertEqual(short.megapixels, 0, accuracy: 0.01, "nothing decoded in the last 10 s")
        let long = history.rates(window: 60, now: now)
        XCTAssertEqual(long.photos, (50 * 2 + 10 * 6) / 60, accuracy: 0.01)
        XCTAssertEqual(long.megapixels, 50 * 3 / 60.0, accuracy: 0.01)
        XCTAssertEqual(history.rates(window: 10, worker: "w2", now: now).photos, 5, accuracy: 0.01)
        XCTAssertEqual(history.rates(window: 10, worker: "w1", now: now).photos, 1, accuracy: 0.01)
        XCTAssertEqual(history.rates(window: 10, job: "a", now: now).photos, 0, accuracy: 0.01)
        XCTAssertEqual(history.rates(window: 60, job: "a", now: now).photos, 50 * 2 / 60.0, accuracy: 0.01)
    }

    func testAYoungHistoryDividesByTheTimeItCovers() {
        var history = ThroughputHistory(now: start)
        for s in 0..<3 {
            for _ in 0..<4 { history.photoSucceeded(job: "a", worker: "w1") }
            history.closeSecond(at: second(Double(s + 1)))
        }
        XCTAssertEqual(history.rates(window: 60, now: second(3)).photos, 4, accuracy: 0.01, "3 s of history, not 60")
    }

    func testKeepsTenMinutes() {
        var history = ThroughputHistory(now: start)
        for s in 0..<700 { history.closeSecond(at: second(Double(s + 1))) }
        XCTAssertEqual(history.samples.count, ThroughputHistory.capacity)
        XCTAssertEqual(history.samples.first?.start, second(100))
    }
}
