import Foundation
import PhotoClusterCore
import XCTest

final class UsableCoresTests: XCTestCase {
    func testACgroupQuotaIsRoundedUpToWholeCores() {
        XCTAssertEqual(UsableCores.quotaCores(cpuMax: "150000 100000\n"), 2)
        XCTAssertEqual(UsableCores.quotaCores(cpuMax: "200000 100000"), 2)
        XCTAssertEqual(UsableCores.quotaCores(cpuMax: "50000 100000"), 1)
        XCTAssertEqual(UsableCores.quotaCores(cpuMax: "400000 50000"), 8)
    }

    func testNoQuotaOrAnUnreadableLineSetsNoLimit() {
        XCTAssertNil(UsableCores.quotaCores(cpuMax: "max 100000\n"))
        XCTAssertNil(UsableCores.quotaCores(cpuMax: ""))
        XCTAssertNil(UsableCores.quotaCores(cpuMax: "100000"))
        XCTAssertNil(UsableCores.quotaCores(cpuMax: "0 100000"))
    }

    func testAKernelCPUListCountsEachCPUOnce() {
        XCTAssertEqual(UsableCores.cpuCount(list: "0-3,8,10-11"), 7)
        XCTAssertEqual(UsableCores.cpuCount(list: "\t0-1"), 2)
        XCTAssertEqual(UsableCores.cpuCount(list: "5"), 1)
        XCTAssertNil(UsableCores.cpuCount(list: ""))
        XCTAssertNil(UsableCores.cpuCount(list: "3-1"))
        XCTAssertNil(UsableCores.cpuCount(list: "a-b"))
    }

    func testTheCountStaysWithinTheHost() {
        XCTAssertGreaterThanOrEqual(UsableCores.count, 1)
        XCTAssertLessThanOrEqual(UsableCores.count, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// A thread pinned to one CPU (as `taskset -c N` pins a process) sees one usable core.
    func testAThreadPinnedToOneCPUCountsOne() throws {
        let allowed = try XCTUnwrap(UsableCores.allowedByAffinity())
        guard allowed > 1 else { throw XCTSkip("this machine lets the tests use one CPU only") }
        // sched_setaffinity needs _GNU_SOURCE, which Swift's Glibc lacks: look it up by name.
        typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32
        let symbol = try XCTUnwrap(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_setaffinity"))
        let setAffinity = unsafeBitCast(symbol, to: SetAffinity.self)
        let seen = LockedBox<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            // One CPU only, the first the kernel accepts (a mask of 1,024 CPUs, as glibc's cpu_set_t).
            let pinned = (0..<1024).contains { cpu in
                var mask = [UInt8](repeating: 0, count: 128)
                mask[cpu / 8] = 1 << (cpu % 8)
                return setAffinity(0, mask.count, &mask) == 0
            }
            guard pinned else { return }
            seen.withLock { $0 = UsableCores.allowedByAffinity() }
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "the pinned thread ended")
        XCTAssertEqual(seen.current, 1)
    }
}
