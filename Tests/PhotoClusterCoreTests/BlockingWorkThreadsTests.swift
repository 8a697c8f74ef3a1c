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

    /// A job stuck in the kernel (a write to a file system that stopped answering) past
    /// `stuckAfter` no longer counts against the limit: the next job gets a thread beside it,
    /// jobs already waiting get one when `replaceStuckThreads` is called, and `stop` does not
    /// wait for the stuck one.
    func testAThreadStuckPastItsTimeGetsAnotherBesideIt() {
        let threads = BlockingWorkThreads(name: "test", limit: 1, stuckAfter: 0.1, maxThreads: 3)
        let stuck = DispatchSemaphore(value: 0)
        let done = LockedBox(0)
        threads.submit { stuck.wait() }
        threads.submit { done.withLock { $0 += 1 } }
        // A waiting job gets a thread only from `replaceStuckThreads`, so it still waits once the
        // busy thread counts as stuck.
        XCTAssertTrue(wait { threads.stuckThreads == 1 }, "the busy thread never counted as stuck")
        XCTAssertEqual(done.current, 0, "the one thread allowed is busy")
        threads.replaceStuckThreads()
        XCTAssertTrue(wait { done.current == 1 }, "a job waiting behind a stuck thread got a thread of its own")
        threads.submit { done.withLock { $0 += 1 } }
        XCTAssertTrue(wait { done.current == 2 }, "a job submitted after got a thread too")
        let stopped = DispatchSemaphore(value: 0)
        Thread { threads.stop(); stopped.signal() }.start()
        XCTAssertEqual(stopped.wait(timeout: .now() + 5), .success, "stop waited for the stuck thread")
        stuck.signal()
    }

    private func wait(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while !condition() && Date() < deadline { usleep(1_000) }
        return condition()
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
