import Foundation
import PhotoClusterCore
import PhotoClusterTransport
import XCTest

final class EventLoopThreadTests: XCTestCase {
    /// A worker posts its goodbye and stops its loop at once: what was posted must still run,
    /// and what the turn gathered must still go out, however the two race.
    func testWorkPostedJustBeforeStopStillRunsAndItsTurnEnds() {
        for round in 0..<300 {
            let loop = EventLoopThread(name: "test-loop")
            let ran = LockedBox(false)
            let turnEndedAfterIt = LockedBox(false)
            loop.atEndOfEachTurn { if ran.current { turnEndedAfterIt.withLock { $0 = true } } }
            loop.start()
            loop.post { ran.withLock { $0 = true } }
            loop.stop()
            XCTAssertTrue(ran.current, "round \(round): the posted work ran before the loop ended")
            XCTAssertTrue(turnEndedAfterIt.current, "round \(round): its turn ended (what it gathered was sent)")
            if !ran.current || !turnEndedAfterIt.current { return }
        }
    }
}
