import XCTest

@testable import PhotoClusterCore

/// The pace and time left that `cluster submit` and `cluster watch` print beside a job's counts.
final class ProgressRateTests: XCTestCase {
    func testNoPaceUntilTheProgressSpansASecond() {
        var rate = ProgressRate()
        XCTAssertNil(rate.photosPerSecond)
        XCTAssertEqual(rate.summary(total: 100), "")
        rate.record(done: 0, at: 0)
        rate.record(done: 40, at: 0.9)
        XCTAssertNil(rate.photosPerSecond, "0.9 s is too short to tell a pace")
        rate.record(done: 50, at: 1.0)
        XCTAssertEqual(rate.photosPerSecond ?? 0, 50, accuracy: 1e-9)
        XCTAssertEqual(rate.secondsLeft(total: 100) ?? 0, 1, accuracy: 1e-9)
        XCTAssertEqual(rate.summary(total: 100), ", 50.0 photos/s, about 1 s left")
    }

    /// A slow start (process start, first downloads) weighs only while it is inside the window.
    func testThePaceIsTheLastWindowsNotTheWholeRuns() {
        var rate = ProgressRate(window: 10)
        var done = 0
        for tenth in 0...50 {  // 5 s at 2 photos/s
            rate.record(done: done, at: Double(tenth) / 10)
            if tenth % 5 == 4 { done += 1 }
        }
        XCTAssertEqual(rate.photosPerSecond ?? 0, 2, accuracy: 0.25)
        for tenth in 51...300 {  // then 25 s at 250 photos/s, a progress event per photo
            for photo in 1...25 {
                done += 1
                rate.record(done: done, at: Double(tenth - 1) / 10 + Double(photo) * 0.004)
            }
        }
        XCTAssertEqual(rate.photosPerSecond ?? 0, 250, accuracy: 1)
        XCTAssertEqual(rate.secondsLeft(total: done + 30_000) ?? 0, 120, accuracy: 2)
        XCTAssertEqual(rate.summary(total: done + 30_000), ", 250 photos/s, about 2 min left")
        XCTAssertLessThanOrEqual(rate.marksKept, 22, "a photo a record, but only a score of marks a window")
    }

    func testAStalledJobHasAPaceOfNoughtAndNoTimeLeftAndTheEndNone() {
        var rate = ProgressRate(window: 4)
        rate.record(done: 10, at: 0)
        rate.record(done: 10, at: 5)
        XCTAssertEqual(rate.photosPerSecond, 0)
        XCTAssertNil(rate.secondsLeft(total: 20))
        XCTAssertEqual(rate.summary(total: 20), ", 0.0 photos/s")
        rate.record(done: 20, at: 6)
        XCTAssertEqual(rate.summary(total: 20), ", 1.7 photos/s", "no time left at the end")
    }

    func testAnEarlierTimeThanTheLatestIsIgnored() {
        var rate = ProgressRate()
        rate.record(done: 0, at: 10)
        rate.record(done: 30, at: 12)
        rate.record(done: 90, at: 11)
        XCTAssertEqual(rate.photosPerSecond ?? 0, 15, accuracy: 1e-9)
    }

    func testTextsAreRoundedForAReader() {
        XCTAssertEqual(ProgressRate.rateText(0.44), "0.4 photos/s")
        XCTAssertEqual(ProgressRate.rateText(12.46), "12.5 photos/s")
        XCTAssertEqual(ProgressRate.rateText(99.96), "100 photos/s")
        XCTAssertEqual(ProgressRate.rateText(1430.4), "1430 photos/s")
        XCTAssertEqual(ProgressRate.durationText(0.2), "1 s")
        XCTAssertEqual(ProgressRate.durationText(45), "45 s")
        XCTAssertEqual(ProgressRate.durationText(59.2), "1 min")
        XCTAssertEqual(ProgressRate.durationText(125), "3 min")
        XCTAssertEqual(ProgressRate.durationText(3700), "1 h 2 min")
    }
}
