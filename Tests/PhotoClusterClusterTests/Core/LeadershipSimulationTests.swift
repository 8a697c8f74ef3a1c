import Foundation
import XCTest

@testable import PhotoClusterScheduling
@testable import PhotoClusterSimulation

/// Leadership under the simulator (`ClusterSimulation` with a leader and a standby on one
/// journal, the leader struck about every 3 simulated seconds): the invariants hold across
/// takeovers, and each planted leadership bug is caught within a few seeds (see
/// docs/architecture.md).
final class LeadershipSimulationTests: XCTestCase {
    func testEveryInvariantHoldsAcrossTakeoversPausesAndHandOvers() {
        let outcomes = Self.run(seeds: 0..<30)
        let broken = outcomes.filter { $0.violation != nil }
        XCTAssertEqual(broken.map(\.seed), [], broken.map { "seed \($0.seed): \($0.violation!)" }.joined(separator: "\n"))
        // The runs went through what they are meant to test.
        let tally = outcomes.map(\.leadership)
        XCTAssertGreaterThan(tally.map(\.takeovers).reduce(0, +), 30, "standbys took over")
        XCTAssertGreaterThan(tally.map(\.leaderPauses).reduce(0, +), 20, "leaders were stopped")
        XCTAssertGreaterThan(tally.map(\.handOvers).reduce(0, +), 5, "leaders handed over")
        XCTAssertGreaterThan(tally.map(\.fencedWrites).reduce(0, +), 2, "a stopped leader woke to find its writes fenced")
        XCTAssertGreaterThan(tally.map(\.stepDowns).reduce(0, +), 10, "leaders stepped down")
    }

    func testAJournalThatSkipsTheFenceIsCaught() {
        assertCaught(.journalSkipsFence, within: 40, saying: "the journal accepted a write")
    }

    func testALeaderThatIgnoresItsLeaseIsCaught() {
        assertCaught(.leaderIgnoresLease, within: 80, saying: "after its lease's deadline")
    }

    /// Caught as the leader's deadline past the row's expiry while its token is the row's, or,
    /// once a standby took the row over, as two leaders that may act by their own leases.
    func testALeaseCountedFromItsAnswerIsCaught() {
        assertCaught(.leaseCountedFromAnswer, within: 20, saying: "after the row's expiry", "may all act as leader by their own leases")
    }

    /// Runs seeds in order until one breaks an invariant with `bug` planted, saying one of `what`.
    private func assertCaught(_ bug: ClusterSimulation.PlantedBug, within seeds: UInt64, saying what: String..., line: UInt = #line) {
        for seed in 0..<seeds {
            let outcome = ClusterSimulation.run(Self.options(seed: seed, bug: bug), from: .now)
            guard let violation = outcome.violation else { continue }
            XCTAssertTrue(what.contains { violation.contains($0) }, "seed \(seed): \(violation)", line: line)
            return
        }
        XCTFail("no seed of \(seeds) caught \(bug.rawValue)", line: line)
    }

    private static func options(seed: UInt64, bug: ClusterSimulation.PlantedBug? = nil) -> ClusterSimulation.Options {
        ClusterSimulation.Options(seed: seed, plantedBug: bug, leaderFaultEvery: 3)
    }

    private static func run(seeds: Range<UInt64>) -> [ClusterSimulation.Outcome] {
        let outcomes = LockedOutcomes()
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for seed in seeds where seed % 2 == UInt64(thread) {
                outcomes.append(ClusterSimulation.run(options(seed: seed), from: .now))
            }
        }
        return outcomes.all.sorted { $0.seed < $1.seed }
    }
}

private final class LockedOutcomes: @unchecked Sendable {
    private var outcomes: [ClusterSimulation.Outcome] = []
    private let lock = NSLock()
    func append(_ outcome: ClusterSimulation.Outcome) { lock.withLock { outcomes.append(outcome) } }
    var all: [ClusterSimulation.Outcome] { lock.withLock { outcomes } }
}
