import Foundation
import XCTest

@testable import PhotoClusterCoordinator

/// The scheduling core under simulated faults (`ClusterSimulation`): a few hundred seeds here,
/// ten thousand with `cluster simulate --seeds 10000` (see docs/architecture.md).
final class ClusterSimulationTests: XCTestCase {
    func testEveryInvariantHoldsOverManySeeds() {
        let seeds = 0..<200
        let outcomes = LockedOutcomes()
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for seed in seeds where seed % 2 == thread {
                outcomes.append(ClusterSimulation.run(.init(seed: UInt64(seed))))
            }
        }
        let broken = outcomes.all.filter { $0.violation != nil }
        XCTAssertEqual(broken.map(\.seed), [], broken.map { "seed \($0.seed): \($0.violation!)" }.joined(separator: "\n"))
        XCTAssertGreaterThanOrEqual(outcomes.all.map(\.steps).min() ?? 0, 200, "every seed runs at least 200 steps")
    }

    func testASeedReplaysStepForStep() {
        let first = ClusterSimulation.run(.init(seed: 7, trace: true))
        let again = ClusterSimulation.run(.init(seed: 7, trace: true))
        XCTAssertEqual(first.trace, again.trace)
        XCTAssertEqual(first.digest, again.digest)
        XCTAssertNotEqual(first.digest, ClusterSimulation.run(.init(seed: 8)).digest, "another seed is another run")
    }

    /// The runs have what they are meant to test: faults, and work in flight when they strike.
    func testRunsKillPauseAndCutOffWorkersWhileTheyHoldPhotos() {
        let summaries = (1...20).map { ClusterSimulation.run(.init(seed: UInt64($0))).summary }
        let killed = summaries.map { Int($0.firstMatch(of: /killed (\d+)/)!.1)! }
        let stopped = summaries.map { Int($0.firstMatch(of: /stopped (\d+)/)!.1)! }
        XCTAssertGreaterThan(killed.reduce(0, +), 20)
        XCTAssertGreaterThan(stopped.reduce(0, +), 10)
    }
}

private final class LockedOutcomes: @unchecked Sendable {
    private var outcomes: [ClusterSimulation.Outcome] = []
    private let lock = NSLock()
    func append(_ outcome: ClusterSimulation.Outcome) { lock.withLock { outcomes.append(outcome) } }
    var all: [ClusterSimulation.Outcome] { lock.withLock { outcomes } }
}
