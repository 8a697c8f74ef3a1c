import Foundation
import PhotoClusterTestSupport
import XCTest

/// The tests' way of starting programs: exit statuses and signals read back, output captured,
/// and a daemon forked by the program never holds up the wait for the program itself.
final class ChildProcessTests: XCTestCase {
    private var scratch: URL!

    override func setUp() {
        scratch = Repository.temporaryDirectory("child")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    func testStatusOutputAndErrorAreReadBack() throws {
        let output = scratch.appendingPathComponent("out"), error = scratch.appendingPathComponent("err")
        let child = try ChildProcess("/bin/sh", ["-c", "echo to-out; echo to-err >&2; exit 3"], output: output, error: error)
        XCTAssertTrue(child.waitForExit(timeout: 30))
        XCTAssertEqual(child.status, 3)
        XCTAssertFalse(child.isRunning)
        XCTAssertEqual(try String(contentsOf: output, encoding: .utf8), "to-out\n")
        XCTAssertEqual(try String(contentsOf: error, encoding: .utf8), "to-err\n")
    }

    func testASignalEndsItAndReadsAs128PlusTheSignal() throws {
        let child = try ChildProcess("/bin/sleep", ["30"], output: scratch.appendingPathComponent("out"))
        XCTAssertTrue(child.isRunning)
        XCTAssertFalse(child.waitForExit(timeout: 0.1), "still sleeping")
        child.send(signal: SIGINT)
        XCTAssertTrue(child.waitForExit(timeout: 10))
        XCTAssertEqual(child.status, 128 + SIGINT)
    }

    /// tmux starts its server this way: the program exits while a daemon it forked lives on
    /// with the program's descriptors. The wait is for the program, by pid.
    func testADaemonForkedByTheProgramDoesNotHoldTheWait() throws {
        let output = scratch.appendingPathComponent("out")
        let child = try ChildProcess("/bin/sh", ["-c", "sleep 30 & echo $!; exit 0"], output: output)
        defer {
            if let daemon = Int32(((try? String(contentsOf: output, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) {
                kill(daemon, SIGKILL)
            }
        }
        XCTAssertTrue(child.waitForExit(timeout: 10), "the program ended while its daemon still runs")
        XCTAssertEqual(child.status, 0)
    }

    func testAMissingProgramIsAnErrorThatNamesIt() {
        XCTAssertThrowsError(try ChildProcess("/nonexistent/tool", [], output: scratch.appendingPathComponent("out"))) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/tool"), "\(error)")
        }
    }
}
