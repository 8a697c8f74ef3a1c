import Foundation
import XCTest

@testable import PhotoClusterCore

/// Priorities apply to one thread only, and the writer threads take theirs as they start.
final class ThreadPriorityTests: XCTestCase {
    private func niceOfThisThread() -> Int32 {
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }

    func testTheSyntaxRoundTrips() {
        for text in ["normal", "nice:1", "nice:19", "batch", "idle"] {
            XCTAssertEqual(ThreadPriority(text)?.description, text)
        }
        for text in ["nice:0", "nice:20", "nice:-5", "nice", "fast", ""] {
            XCTAssertNil(ThreadPriority(text), text)
        }
    }

    func testEachPriorityAppliesToTheCallingThreadOnly() {
        let callerNice = niceOfThisThread()
        let callerPolicy = sched_getscheduler(0)
        let cases: [(ThreadPriority, expected: (nice: Int32, policy: Int32))] = [
            (.nice(7), (7, callerPolicy)), (.batch, (callerNice, ThreadPriority.schedBatch)), (.idle, (callerNice, ThreadPriority.schedIdle)),
        ]
        for (priority, expected) in cases {
            let seen = LockedBox<(nice: Int32, policy: Int32, applied: Bool)?>(nil)
            let thread = Thread {
                let applied = priority.applyToCurrentThread()
                seen.withLock { $0 = (self.niceOfThisThread(), sched_getscheduler(0), applied) }
            }
            thread.start()
            XCTAssertTrue(waitUntil { seen.current != nil }, "\(priority)")
            XCTAssertEqual(seen.current?.applied, true, "\(priority)")
            XCTAssertEqual(seen.current?.nice, expected.nice, "\(priority)")
            XCTAssertEqual(seen.current?.policy, expected.policy, "\(priority)")
        }
        XCTAssertEqual(niceOfThisThread(), callerNice, "the caller's thread is unchanged")
        XCTAssertEqual(sched_getscheduler(0), callerPolicy)
    }

    func testWriterThreadsRunTheirJobsAtTheirPriority() {
        let threads = BlockingWorkThreads(name: "prio-test", limit: 2, priority: .nice(11))
        defer { threads.stop() }
        let seen = LockedBox<[Int32]>([])
        for _ in 0..<4 { threads.submit { seen.withLock { $0.append(self.niceOfThisThread()) } } }
        threads.waitUntilIdle()
        XCTAssertEqual(seen.current, [11, 11, 11, 11])
    }

    private func waitUntil(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while !condition() {
            if Date() > deadline { return false }
            usleep(1_000)
        }
        return true
    }
}
