import Foundation
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling
@testable import PhotoClusterSimulation

/// The scheduling core under simulated faults (`ClusterSimulation`): a few hundred seeds here,
/// ten thousand with `cluster simulate --seeds 10000` (see docs/architecture.md).
final class ClusterSimulationTests: XCTestCase {
    func testEveryInvariantHoldsOverManySeeds() {
        let seeds = 0..<200
        let outcomes = LockedOutcomes()
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for seed in seeds where seed % 2 == thread {
                outcomes.append(ClusterSimulation.run(.init(seed: UInt64(seed)), from: .now))
            }
        }
        let broken = outcomes.all.filter { $0.violation != nil }
        XCTAssertEqual(broken.map(\.seed), [], broken.map { "seed \($0.seed): \($0.violation!)" }.joined(separator: "\n"))
        XCTAssertGreaterThanOrEqual(outcomes.all.map(\.steps).min() ?? 0, 200, "every seed runs at least 200 steps")
    }

    /// The runs have what they are meant to test: faults, and work in flight when they strike.
    func testRunsKillPauseAndCutOffWorkersWhileTheyHoldPhotos() {
        let faults = (1...30).map { ClusterSimulation.run(.init(seed: UInt64($0)), from: .now).faults }
        XCTAssertGreaterThan(faults.map(\.killed).reduce(0, +), 20)
        XCTAssertGreaterThan(faults.map(\.stopped).reduce(0, +), 10)
        XCTAssertGreaterThan(faults.map(\.cutOff).reduce(0, +), 10)
    }

    /// A worker whose hello grants the slots it holds is caught as the grant leaves it (the
    /// coordinator holds credit to its bound, so its own count never shows it).
    func testAWorkerThatGrantsCreditItHasNotGotIsCaught() {
        for seed in UInt64(1)...20 {
            guard let violation = ClusterSimulation.run(.init(seed: seed, plantedBug: .workerGrantsHeldSlots), from: .now).violation else { continue }
            XCTAssertTrue(violation.contains("granted credit it has not got"), "seed \(seed): \(violation)")
            return
        }
        XCTFail("no seed of 20 caught worker-grants-held-slots")
    }
}

private final class LockedOutcomes: @unchecked Sendable {
    private var outcomes: [ClusterSimulation.Outcome] = []
    private let lock = NSLock()
    func append(_ outcome: ClusterSimulation.Outcome) { lock.withLock { outcomes.append(outcome) } }
    var all: [ClusterSimulation.Outcome] { lock.withLock { outcomes } }
}
