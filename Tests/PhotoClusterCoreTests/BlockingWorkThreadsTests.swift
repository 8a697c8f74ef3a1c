import Foundation
import PhotoClusterCore
import XCTest

final class BlockingWorkThreadsTests: XCTestCase {
    func testAJobBlockedInTheKernelDoesNotHoldUpTheOthers() {
        let threads = BlockingWorkThreads(name: "test", limit: 2)
        defer { threads.stop() }
        let blocked = DispatchSemaphore(value: 0)
        let done = LockedBox(0)
        threads.submit { blocked.wait() }
        for _ in 0..<5 { threads.submit { done.withLock { $0 += 1 } } }
        let deadline = Date().addingTimeInterval(10)
        while done.current < 5 && Date() < deadline { usleep(1_000) }
        XCTAssertEqual(done.current, 5, "the second thread ran them while the first was blocked")
        blocked.signal()
        threads.waitUntilIdle()
    }

    func testWaitUntilIdleWaitsForEveryJobSubmitted() {
        let threads = BlockingWorkThreads(name: "test", limit: 3)
        defer { threads.stop() }
        let done = submitSlowJobs(30, lasting: 1_000, to: threads)
        threads.waitUntilIdle()
        XCTAssertEqual(done.current, 30)
    }

    func testStopLetsSubmittedJobsFinishAndLaterJobsRunOnTheCaller() {
        let threads = BlockingWorkThreads(name: "test", limit: 2)
        let done = submitSlowJobs(10, lasting: 2_000, to: threads)
        threads.stop()
        XCTAssertEqual(done.current, 10, "stop waited for the jobs already submitted")
        var ranOn: Thread?
        threads.submit { ranOn = Thread.current }
        XCTAssertEqual(ranOn, Thread.current, "after stop, a job runs at once on the caller's thread")
    }

    /// `count` jobs that each sleep `microseconds` and then count themselves done.
    private func submitSlowJobs(_ count: Int, lasting microseconds: UInt32, to threads: BlockingWorkThreads) -> LockedBox<Int> {
        let done = LockedBox(0)
        for _ in 0..<count {
            threads.submit {
                usleep(microseconds)
                done.withLock { $0 += 1 }
            }
        }
        return done
    }
}
