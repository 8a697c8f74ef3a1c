import Foundation
import PhotoClusterCore
import PhotoClusterProto
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling

/// Photos held by a worker that died, event by event (moved down from `WorkerLossTests`, which
/// keeps the cases that need real processes): each becomes a suspect, goes behind the photos that
/// never hurt anyone, runs alone and not on a worker it was lost on while another can take it.
final class WorkerLossCoreTests: XCTestCase {
    private func photos(_ actions: [CoordinatorAction], to worker: String) -> [String] {
        CoreHarness.graphs(in: actions).filter { $0.worker == worker }.flatMap(\.photos)
    }

    func testPhotosOfARestartedWorkerGoBehindTheOthersAndRunAloneElsewhere() {
        let core = CoreHarness()
        core.hello("first", incarnation: "first-1")
        core.submit(photos: 4)
        let held = photos(core.credit("first", 2), to: "first")
        XCTAssertEqual(held.count, 2)
        core.hello("second")

        core.hello("first", incarnation: "first-2")
        let suspects = Set(held.map { $0.replacingOccurrences(of: "@1", with: "") })
        let losses = core.core.jobs["job1"]!.workerLosses
        XCTAssertEqual(Set(losses.keys.map { "job1/\($0)" }), suspects, "both photos it held became suspects")
        XCTAssertEqual(losses.values.map(\.count), [0, 0], "with two photos held the culprit is unknown: none is charged")

        let others = photos(core.credit("first", 4), to: "first")
        XCTAssertEqual(others.count, 2, "the photos that never hurt anyone, and no suspect back on the worker it was lost on")
        XCTAssertTrue(Set(others.map { $0.replacingOccurrences(of: "@1", with: "") }).isDisjoint(with: suspects))

        let alone = photos(core.credit("second", 4), to: "second")
        XCTAssertEqual(alone.count, 1, "a suspect runs alone")
        let first = try! XCTUnwrap(alone.first)
        XCTAssertTrue(suspects.contains(String(first.dropLast(2))))
        let index = UInt32(first.split(separator: "/")[1].split(separator: "@")[0])!
        let next = photos(core.result("second", PhotoRef(job: "job1", index: index), attempt: 2, credit: 1), to: "second")
        XCTAssertEqual(next, [suspects.subtracting([String(first.dropLast(2))]).first! + "@2"], "the second suspect, once the first was done")
    }

    func testAPhotoChargedTheLimitOfLossesFailsAndItsBystanderRuns() {
        var settings = CoordinatorCore.Settings(coordinatorID: "test")
        settings.maxWorkerLosses = 2
        let core = CoreHarness(settings: settings)
        core.hello("only", incarnation: "only-1")
        core.submit(photos: 2)
        let culprit = try! XCTUnwrap(photos(core.credit("only", 1), to: "only").first)
        let ref = String(culprit.dropLast(2))

        // Its worker's only photo: charged, and it goes back alone (a worker is kept for it).
        core.hello("only", incarnation: "only-2")
        XCTAssertEqual(photos(core.credit("only", 2), to: "only"), [ref + "@2"])
        let index = UInt32(ref.split(separator: "/")[1])!
        XCTAssertEqual(core.core.jobs["job1"]?.workerLosses[index]?.count, 1)

        // Charged twice: it fails for good, and the other photo runs.
        let lost = core.hello("only", incarnation: "only-3")
        XCTAssertEqual(CoreHarness.settled(in: lost), ["\(ref) failed"])
        XCTAssertEqual(core.core.jobs["job1"]?.photo(index)?.reason, "worker lost 2 times while processing this photo; it may crash workers")
        let bystander = photos(core.credit("only", 2), to: "only")
        XCTAssertEqual(bystander.count, 1)
        XCTAssertNotEqual(bystander.first.map { String($0.dropLast(2)) }, ref)
    }

    /// The worker said what it granted the photo when it admitted it (the last grant before each
    /// loss is kept): the photo fails naming it. A grant that ended with its attempt is not.
    func testAPhotoThatKillsItsWorkersFailsNamingTheMemoryItWasGranted() {
        var settings = CoordinatorCore.Settings(coordinatorID: "test")
        settings.maxWorkerLosses = 2
        let core = CoreHarness(settings: settings)
        core.hello("only", incarnation: "only-1")
        core.submit(photos: 1)
        XCTAssertEqual(photos(core.credit("only", 1), to: "only"), ["job1/0@1"])
        func admitted(attempt: UInt32, bytes: UInt64) {
            _ = core.from("only", .reports(.with {
                $0.reports = [.with { report in
                    report.admitted = .with {
                        $0.jobID = "job1"
                        $0.photoIndex = 0
                        $0.attempt = attempt
                        $0.memoryGrantBytes = bytes
                    }
                }]
            }))
        }
        admitted(attempt: 1, bytes: 700 << 20)
        XCTAssertEqual(core.core.jobs["job1"]?.memoryGrants[0], 700 << 20)
        core.hello("only", incarnation: "only-2")
        XCTAssertNil(core.core.jobs["job1"]?.memoryGrants[0], "the loss took the figure")
        XCTAssertEqual(photos(core.credit("only", 1), to: "only"), ["job1/0@2"])
        admitted(attempt: 2, bytes: 812 << 20)
        core.hello("only", incarnation: "only-3")
        XCTAssertEqual(
            core.core.jobs["job1"]?.photo(0)?.reason,
            "worker lost 2 times while processing this photo, which was granted 812 MiB of memory; it may crash workers")
    }
}
