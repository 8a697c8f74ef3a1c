import Foundation
import XCTest

/// `cluster simulate`: a seed replays step for step, in any process.
final class SimulateCommandTests: XCTestCase {
    func testASeedReplaysStepForStepInANewProcess() throws {
        let first = try CommandRunner.run(["simulate", "--seed", "7", "--trace"])
        let again = try CommandRunner.run(["simulate", "--seed", "7", "--trace"])
        XCTAssertEqual(first.status, 0, first.stdout)
        XCTAssertGreaterThan(first.stdout.split(separator: "\n").count, 200, "a line per step and action")
        // Every line but the one with the wall-clock time the run took.
        let steps = { (output: String) in output.split(separator: "\n").filter { !$0.contains(" seeds in ") } }
        XCTAssertEqual(steps(first.stdout), steps(again.stdout), "the same seed made another run")
        let other = try CommandRunner.run(["simulate", "--seed", "8"])
        let digest = { (output: String) in output.split(separator: "\n").first { $0.contains("digest") }.map(String.init) }
        XCTAssertNotNil(digest(first.stdout))
        XCTAssertNotEqual(digest(first.stdout)?.split(separator: " ").last, digest(other.stdout)?.split(separator: " ").last, "another seed is another run")
    }

    func testSeedsRunWithTheirCountAndTheReplayOfAnyThatBreaks() throws {
        let result = try CommandRunner.run(["simulate", "--seeds", "20", "--first-seed", "100"])
        XCTAssertEqual(result.status, 0, result.stdout)
        XCTAssertTrue(result.stdout.contains("20 seeds in"), result.stdout)
        XCTAssertTrue(result.stdout.contains("0 broke an invariant"), result.stdout)
    }
}
