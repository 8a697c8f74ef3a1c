import Foundation
import PhotoClusterCore
import PhotoClusterTestSupport
import XCTest

/// Defaults a user gets without flags, where they depend on the machine.
final class WorkerDefaultsTests: XCTestCase {
    /// Under `taskset -c N` (here: spawned from a thread pinned to one CPU, whose mask the
    /// process inherits), a worker given no --concurrency runs one photo at a time, not one per
    /// CPU of the host.
    func testAWorkerPinnedToOneCPUTakesOnePhotoAtATime() throws {
        guard (UsableCores.allowedByAffinity() ?? 1) > 1 else { throw XCTSkip("this machine lets the tests use one CPU only") }
        let port = LoopbackPorts.consecutive(1)
        let started = try onThreadPinnedToOneCPU {
            try CommandRunner.start(["worker", "--insecure", "--coordinator", "tcp://127.0.0.1:\(port)", "--id", "pinned"])
        }
        let worker = try XCTUnwrap(started, "a thread could be pinned to one CPU")
        defer { worker.stop() }
        XCTAssertTrue(eventually(timeout: 15) { worker.stderrSoFar.contains("with concurrency") }, worker.stderrSoFar)
        XCTAssertTrue(worker.stderrSoFar.contains("with concurrency 1;"), worker.stderrSoFar)
    }
}
