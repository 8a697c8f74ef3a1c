import Foundation
import PhotoClusterCore
import XCTest

/// The lock-free queue the worker's loop, its queue thread and the stage threads share: many
/// threads put at once, nothing is lost or taken twice, and each thread's puts come out in the
/// order it made them.
final class MPSCQueueTests: XCTestCase {
    func testManyProducersLoseNothingAndKeepEachOnesOrder() {
        let queue = MPSCQueue<(producer: Int, sequence: Int)>()
        let producers = 8
        let perProducer = 20_000
        let started = DispatchGroup()
        let done = DispatchGroup()
        for producer in 0..<producers {
            started.enter()
            done.enter()
            Thread.detachNewThread {
                started.leave()
                for sequence in 0..<perProducer { queue.put((producer, sequence)) }
                done.leave()
            }
        }
        started.wait()
        // The consumer takes while the producers put.
        var taken: [(producer: Int, sequence: Int)] = []
        while done.wait(timeout: .now()) == .timedOut { taken += queue.takeAll() }
        taken += queue.takeAll()

        XCTAssertEqual(taken.count, producers * perProducer, "every element came out exactly once")
        var next = [Int](repeating: 0, count: producers)
        for element in taken {
            XCTAssertEqual(element.sequence, next[element.producer], "producer \(element.producer) out of order")
            next[element.producer] = element.sequence + 1
        }
        XCTAssertTrue(queue.isEmpty)
    }

    func testElementsLeftInTheQueueAreReleasedWithIt() {
        final class Tracked: @unchecked Sendable {
            let released: LockedBox<Int>
            init(_ released: LockedBox<Int>) { self.released = released }
            deinit { released.withLock { $0 += 1 } }
        }
        let released = LockedBox(0)
        do {
            let queue = MPSCQueue<Tracked>()
            for _ in 0..<10 { queue.put(Tracked(released)) }
            _ = queue.takeAll().prefix(3)
            for _ in 0..<5 { queue.put(Tracked(released)) }
        }
        XCTAssertEqual(released.current, 15, "taken and untaken elements alike were released")
    }
}

/// The engine's queue thread: work runs in the order handed over, from any thread, and after
/// `stop` on the caller's thread.
final class SerialThreadTests: XCTestCase {
    func testWorkRunsOneAtATimeInOrderOnTheThread() {
        let thread = SerialThread(name: "serial-test")
        defer { thread.stop() }
        let log = LockedBox<[Int]>([])
        let running = LockedBox(0)
        let overlapped = LockedBox(false)
        for index in 0..<2_000 {
            thread.submit(wake: index % 7 != 0) {
                if running.withLock({ $0 += 1; return $0 }) > 1 { overlapped.withLock { $0 = true } }
                log.withLock { $0.append(index) }
                running.withLock { $0 -= 1 }
            }
        }
        let names = thread.sync { Thread.current.name ?? "" }
        XCTAssertEqual(log.current, Array(0..<2_000))
        XCTAssertFalse(overlapped.current)
        XCTAssertEqual(names, "serial-test")
    }

    func testWorkHandedOverWithoutWakingWaitsForAWake() {
        let thread = SerialThread(name: "serial-test")
        defer { thread.stop() }
        let ran = DispatchSemaphore(value: 0)
        thread.submit(wake: false) { ran.signal() }
        XCTAssertEqual(ran.wait(timeout: .now() + 0.1), .timedOut, "nothing woke the thread")  // the missing wake-up is what is tested
        thread.wake()
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
    }

    func testStopRunsWhatWasHandedOverAndLaterWorkRunsOnTheCaller() {
        let thread = SerialThread(name: "serial-test")
        let log = LockedBox<[Int]>([])
        for index in 0..<100 { thread.submit(wake: false) { log.withLock { $0.append(index) } } }
        thread.stop()
        XCTAssertEqual(log.current, Array(0..<100), "stop ran what was waiting")
        let caller = Thread.current
        var ranHere = false
        thread.submit { ranHere = Thread.current == caller }
        XCTAssertTrue(ranHere)
    }
}
