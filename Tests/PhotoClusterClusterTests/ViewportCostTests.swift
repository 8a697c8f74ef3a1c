import Foundation
import PhotoClusterClient
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import PhotoClusterTransport
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling

/// A viewport change costs the coordinator the photos in flight and those that change band,
/// not the photos of the job: moving over a 100,000-photo job costs what it costs over 100.
final class ViewportCostTests: XCTestCase {
    private var cluster: ScriptedWorkerCluster!
    private var state: URL?

    override func tearDown() {
        cluster?.stop()
        if let state { try? FileManager.default.removeItem(at: state) }
    }

    func testAViewportChangeOnA100000PhotoJobCostsNoMoreThanOnA100PhotoJob() async throws {
        cluster = try ScriptedWorkerCluster(name: "viewport-cost", workerBudgets: Self.busyWorkers)
        try await compareChanges()
    }

    /// The journal records each change: its cost must not grow with the job either (the job's
    /// row is written whole on each update, so the submit message lives apart from it).
    func testWithTheJournalOnAViewportChangeOnA100000PhotoJobCostsNoMoreThanOnA100PhotoJob() async throws {
        state = Repository.temporaryDirectory("viewport-cost-state")
        cluster = try ScriptedWorkerCluster(name: "viewport-cost", state: state, workerBudgets: Self.busyWorkers)
        try await compareChanges()
    }

    /// Workers believed to hold a million photos each: a cluster whose every photo is in flight.
    private static let busyWorkers = WorkerBudgets(maxConcurrency: 1_000_000)

    private func compareChanges() async throws {
        let small = try await submit(photos: 100)
        let large = try await submit(photos: 100_000)
        // Workers with credit to spare: every change cancels the photos in flight out of view
        // and sends the newly visible ones, as on a busy cluster.
        let workers = try (0..<4).map { try cluster.connect("w\($0)", concurrency: Self.busyWorkers.maxConcurrency) }
        for worker in workers { try worker.grant(1_000_000) }
        XCTAssertTrue(eventually { self.cluster.coordinator.workerSnapshot().map(\.inFlight).reduce(0, +) > 0 }, "the workers took photos")

        // The two jobs take turns, so whatever else the machine does falls on both alike; each
        // change is timed in the loop thread's own CPU time, which another process cannot inflate.
        var generator = SystemRandomNumberGenerator()
        var costs: [String: [Double]] = [small: [], large: []]
        for round in 0..<240 {
            for (job, count) in [(small, 100), (large, 100_000)] {
                let start = Int.random(in: 0...(count - 10), using: &generator)
                let viewport = Viewport(visible: start...(start + 9), prefetch: 5).proto(epoch: 0)
                let micros = await cluster.coordinator.onLoop {
                    Self.threadCPUMicroseconds { self.cluster.coordinator.tellCore(.viewport(job: job, viewport, arrivedAt: .now)) }
                }
                // The first rounds warm up caches and allocations.
                if round >= 40 { costs[job]!.append(micros) }
            }
            // Heard from, the workers stay connected however long the rounds take.
            for worker in workers {
                worker.drain()
                try worker.send(.heartbeat(.init()))
            }
        }
        let inFlight = await cluster.coordinator.onLoop { self.cluster.coordinator.jobs[large]!.inFlight.count }
        XCTAssertGreaterThan(inFlight, 0, "changes find photos in flight to cancel")
        let smallMedian = median(costs[small]!)
        let largeMedian = median(costs[large]!)
        print("viewport change, coordinator CPU median: 100 photos \(smallMedian) µs, 100,000 photos \(largeMedian) µs")
        XCTAssertLessThanOrEqual(largeMedian, 2 * smallMedian, "a change on 100,000 photos costs \(largeMedian) µs, on 100 photos \(smallMedian) µs")
    }

    /// A viewport-mode job of `photos` photos (the workers are scripted: nothing is downloaded).
    private func submit(photos: Int) async throws -> String {
        var submit = try ClusterHarness.submit((0..<photos).map { ("p\($0)", "http://127.0.0.1:9/p\($0).jpg") }, out: cluster.out)
        submit.viewportMode = true
        submit.viewport = .with { $0.visibleStart = 0; $0.visibleEnd = 9; $0.prefetch = 5 }
        return try await cluster.client.submit(submit).id
    }

    private func median(_ values: [Double]) -> Double {
        values.sorted()[values.count / 2]
    }

    /// CPU time the calling thread spends in `body`, in microseconds.
    private static func threadCPUMicroseconds(_ body: () -> Void) -> Double {
        var before = timespec()
        var after = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &before)
        body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &after)
        return Double(after.tv_sec - before.tv_sec) * 1e6 + Double(after.tv_nsec - before.tv_nsec) / 1e3
    }
}
