import Foundation
import PhotoClusterCore
import PhotoClusterTestSupport
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
        let seen = try onThreadPinnedToOneCPU { UsableCores.allowedByAffinity() }
        XCTAssertEqual(seen, 1)
    }
}
