import Foundation
import PhotoClusterCore
import PhotoClusterProto
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling
@testable import PhotoClusterSimulation

/// Bugs `cluster simulate` found, each as the seed that found it and as the events that make
/// it, with exact actions.
final class SimulatorFoundTests: XCTestCase {
    /// Seeds that broke an invariant with the bugs below put back (3192 and another the first,
    /// 7558 the second, in 10,000 seeds of the simulator before workers' sockets kept what they
    /// said while no coordinator was up; 783 and 3726 found them first, in its first version),
    /// and since then 3814 (a heartbeat queued behind a hello: see
    /// `WorkerSessionTests.testAHeartbeatBeforeTheWelcomeAccountsForNothing`)
    /// and 12 (a worker registered once per heartbeat queued while the coordinator was down,
    /// with `WorkerSessionTests.testRequestsToRegisterWhileAHelloIsOnItsWayAreAnsweredByIt`'s
    /// fix taken out): they hold now.
    func testTheSeedsThatFoundBugsHold() {
        for seed: UInt64 in [3192, 7558, 783, 3726, 3814, 12] {
            let outcome = ClusterSimulation.run(.init(seed: seed), from: .now)
            XCTAssertNil(outcome.violation, "seed \(seed)")
        }
    }

    /// Seed 658 with the leader struck every 3 s: a worker's results of graphs an earlier leader
    /// sent, behind its hello, were taken for the new leader's graphs of the same photos under
    /// the same attempt numbers, and freed slots those still held (see
    /// `EarlierCoordinatorReportTests`). It holds now.
    func testTheLeaderFaultSeedThatFoundAnOutcomeOfAnEarlierLeadersGraphHolds() {
        let outcome = ClusterSimulation.run(.init(seed: 658, leaderFaultEvery: 3), from: .now)
        XCTAssertNil(outcome.violation)
    }

    /// Seed 783 (3192 today): a worker restarted while a batch was on its way to its old process; the new one
    /// ran a photo of it far enough to hold its stages, so the photo was left for that worker by
    /// affinity, while as a suspect lost on it, it was kept off it: it waited for ever.
    func testASuspectIsNotLeftForTheWorkerHoldingItsStagesWhenItWasLostThere() {
        let core = CoreHarness()
        core.hello("w", incarnation: "w-1")
        core.submit(photos: 2)
        core.credit("w", 2)
        core.hello("w", incarnation: "w-2")
        // The restarted process ran the old process's graph as far as its download.
        core.from("w", .progress(.with { $0.jobID = "job1"; $0.photoIndex = 0; $0.attempt = 1; $0.stage = .download }))
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.cachedOn, core.core.workers["w"]?.number, "its stages are on w")
        XCTAssertNotNil(core.core.jobs["job1"]?.workerLosses[0], "a suspect: lost with the process that died")
        core.hello("other")
        let sent = CoreHarness.graphs(in: core.credit("other", 4))
        XCTAssertEqual(sent.flatMap(\.photos).first, "job1/0@2", "the suspect went to the worker that may run it")
    }

    /// Seed 3726 (7558 today): a worker's grant was lost with its connection; it held nothing and believed
    /// the coordinator held its credit, so it was never sent a photo again. Its heartbeat's
    /// free slots bring the credit back, less the assignments still on their way.
    func testCreditLostInTransitComesBackWithTheWorkersHeartbeat() {
        let core = CoreHarness()
        core.hello("w", concurrency: 1)
        core.submit(photos: 6)
        XCTAssertEqual(core.core.workers["w"]?.credits, 0, "the grant was lost")
        let restored = core.from("w", .heartbeat(.with { $0.assignSequence = 0; $0.freeSlots = 4 }))
        XCTAssertEqual(CoreHarness.graphs(in: restored).first?.photos.count, 4, "the window of one stage thread")
        // Four on their way, not yet accounted for: nothing more is owed.
        XCTAssertTrue(CoreHarness.graphs(in: core.from("w", .heartbeat(.with { $0.assignSequence = 0; $0.freeSlots = 4 }))).isEmpty)
        XCTAssertEqual(core.core.workers["w"]?.credits, 0)
        // A grant on its way when the heartbeat left was counted before it (a connection keeps order).
        core.credit("w", 0)
        XCTAssertEqual((core.core.workers["w"]?.credits ?? 0) + (core.core.workers["w"]?.inFlight.count ?? 0), 4, "never more than the window")
    }
}
