import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling

/// A job handed to another thread is a snapshot: every field as it was, and nothing the loop
/// changes afterwards.
final class JobSnapshotTests: XCTestCase {
    private func busyJob() throws -> Job {
        var submit = try ClusterHarness.submit((0..<6).map { ("p\($0)", "http://h/\($0 % 4).jpg") }, out: URL(fileURLWithPath: "/tmp/snapshot"))
        submit.viewportMode = true
        submit.viewport = .with { $0.visibleStart = 1; $0.visibleEnd = 3; $0.prefetch = 1 }
        let job = Job(id: "job-1", submit: submit, outputDirectory: URL(fileURLWithPath: "/tmp/snapshot"), now: Date())
        var encoded: [UInt8] = []
        _ = job.assign(1, to: WorkerNumber(value: 3), encodingInto: &encoded)
        job.markDone(2, format: .png, width: 4, height: 5)
        job.markFailed(3, stage: "download", reason: "HTTP 404")
        job.scheduleRetry(1, after: 5, now: .now)
        job.controlAckMilliseconds = [1.5]
        job.work.bytes = 7
        job.enter(.inProgress, at: Date())
        return job
    }

    /// Every stored property is copied (a field added to `Job` and left out of the copy fails here).
    func testASnapshotHasEveryFieldOfTheJob() throws {
        let job = try busyJob()
        let snapshot = job.snapshot()
        let fields = Mirror(reflecting: job).children
        let copied = Mirror(reflecting: snapshot).children
        XCTAssertEqual(fields.map(\.label), copied.map(\.label))
        XCTAssertGreaterThan(fields.count, 30)
        for (field, copy) in zip(fields, copied) {
            XCTAssertEqual(String(describing: field.value), String(describing: copy.value), field.label ?? "")
        }
    }

    /// What the loop changes after the snapshot stays out of it.
    func testTheLoopsLaterChangesDoNotReachASnapshot() throws {
        let job = try busyJob()
        let snapshot = job.snapshot()
        job.markDone(0, format: .jpeg, width: 1, height: 1)
        job.epoch += 1
        job.enter(.didFinish, at: Date())
        XCTAssertEqual(snapshot.photos[0].state, .new)
        XCTAssertEqual(snapshot.epoch, job.epoch - 1)
        XCTAssertEqual(snapshot.phase, .inProgress)
        XCTAssertEqual(snapshot.progress.succeeded, 1)
        XCTAssertEqual(job.progress.succeeded, 2)
    }
}
