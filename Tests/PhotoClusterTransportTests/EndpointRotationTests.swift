import PhotoClusterCore
import XCTest

@testable import PhotoClusterTransport

/// Which coordinator endpoint a worker or client tries next, and when: the list as
/// `--coordinator` gives it, the order, and the back-off while nothing answers.
final class EndpointRotationTests: XCTestCase {
    func testAListIsSplitAtCommasAndTrimmed() throws {
        XCTAssertEqual(try CoordinatorEndpointList.parse("tcp://a:7000"), ["tcp://a:7000"])
        XCTAssertEqual(try CoordinatorEndpointList.parse("tcp://a:7000, tcp://b:7000"), ["tcp://a:7000", "tcp://b:7000"])
    }

    func testAMalformedListNamesTheItemAndTheReason() {
        for (list, words) in [
            ("", "no coordinator endpoint in \"\""),
            ("tcp://a:7000,,tcp://b:7000", "item 2 of \"tcp://a:7000,,tcp://b:7000\" is empty"),
            (",tcp://a:7000", "item 1 of \",tcp://a:7000\" is empty"),
            ("tcp://a:7000,tcp://a:7000", "tcp://a:7000 is named twice"),
        ] {
            XCTAssertThrowsError(try CoordinatorEndpointList.parse(list), list) { error in
                XCTAssertTrue("\(error)".contains(words), "\(list): \(error)")
            }
        }
    }

    func testMovesGoRoundTheListAndOneEndpointNeverMoves() {
        XCTAssertFalse(EndpointRotation(["tcp://a:7000"]).canMove)
        var rotation = EndpointRotation(["a", "b", "c"])
        XCTAssertTrue(rotation.canMove)
        XCTAssertEqual(rotation.current, "a")
        let now = MonotonicInstant.now
        let first = rotation.move(at: now)
        XCTAssertEqual([first.from, first.to], ["a", "b"])
        XCTAssertEqual(first.openAt, now, "an endpoint never tried is tried at once")
        XCTAssertEqual(rotation.move(at: now).to, "c")
        XCTAssertEqual(rotation.move(at: now).to, "a")
        XCTAssertEqual(rotation.moves, 3)
    }

    /// Two endpoints that both refuse: each is tried again no sooner than the interval after its
    /// last try, and the interval doubles with each turn in which nothing answered, up to its cap.
    func testNothingAnsweringBacksOffAndAnAnswerStartsAfresh() {
        var rotation = EndpointRotation(["a", "b"], firstInterval: 0.25, maxInterval: 1)
        var now = MonotonicInstant.now
        rotation.tried(at: now)
        var waits: [Double] = []
        for _ in 0..<8 {
            let next = rotation.move(at: now)
            waits.append(next.openAt.seconds(since: now))
            now = next.openAt
            rotation.tried(at: now)
        }
        XCTAssertEqual(waits.map { ($0 * 100).rounded() / 100 }, [0, 0.5, 0, 1, 0, 1, 0, 1])

        rotation.answered()
        XCTAssertEqual(rotation.move(at: now).openAt, now, "b was last tried a turn ago")
        let back = rotation.move(at: now)
        XCTAssertEqual(back.openAt.seconds(since: now), 0.25, accuracy: 0.001, "after an answer the back-off starts afresh")
    }
}
