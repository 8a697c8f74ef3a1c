import Foundation
import PhotoClusterCore
import PhotoClusterProto
import XCTest

@testable import PhotoClusterScheduling

/// A job's life as the core decides it (`CoordinatorCore+Lifecycle`), event by event: it starts,
/// begins its end when its last photo settles, ends only once its index is written (or the
/// write is given up), and is forgotten only once finished and past retention; a restored job
/// goes on where it stopped.
final class CoreLifecycleTests: XCTestCase {
    /// The life-cycle actions, in order, as short lines.
    private static func lifecycle(_ actions: [CoordinatorAction]) -> [String] {
        actions.compactMap { action in
            switch action {
            case .journalJobState(let job): return "journal \(job)"
            case .jobPhase(let job, let phase): return "\(job) \(phase)"
            case .writeIndex(let job): return "write the index of \(job)"
            case .jobFinished(let job, let problem): return "\(job.id) ended" + (problem == nil ? "" : " without its index")
            case .jobsForgotten(let jobs): return "forget \(jobs.map(\.id).joined(separator: ","))"
            case .removeOutputs(let write, let names): return "remove \(write.result.jobID)/\(names.joined(separator: ","))"
            default: return nil
            }
        }
    }

    private func written(_ job: String, _ index: UInt32, error: Error? = nil) -> CoordinatorEvent {
        .resultsWritten([WrittenResult(
            result: .with { $0.jobID = job; $0.photoIndex = index; $0.format = .jpeg }, worker: "w", targets: [(index, "p\(index).jpg")], errors: [error])])
    }

    private func newJob(_ id: String, photos: Int) -> Job {
        var submit = Photocluster_V1_SubmitJob()
        submit.photos = (0..<photos).map { index in .with { $0.name = "p\(index)"; $0.url = "http://photos.test/\(id)/\(index).jpg" } }
        return Job(id: id, submit: submit, outputDirectory: URL(fileURLWithPath: "/out/\(id)"), now: Date(timeIntervalSince1970: 0))
    }

    func testAJobStartsAndEndsOnlyOnceItsIndexIsWritten() {
        let core = CoreHarness()
        core.hello("w")
        let job = newJob("job1", photos: 2)
        XCTAssertEqual(Self.lifecycle(core.handle(.jobOpened(job))), ["journal job1", "job1 inProgress"])
        XCTAssertEqual(job.phase, .inProgress)

        XCTAssertEqual(Self.lifecycle(core.handle(written("job1", 0))), [], "one photo of two: the job goes on")
        XCTAssertEqual(Self.lifecycle(core.handle(written("job1", 1))), ["job1 willFinish", "write the index of job1"])
        XCTAssertEqual(job.phase, .willFinish, "not finished before its index is written")
        XCTAssertTrue(core.core.openJobs.contains("job1"))

        let ended = core.handle(.indexWritten("job1", problem: nil))
        XCTAssertEqual(Self.lifecycle(ended), ["job1 ended"])
        XCTAssertEqual(CoreHarness.messages(in: ended), ["w: job job1 closed"], "closed on the workers")
        XCTAssertEqual(job.phase, .didFinish)
        XCTAssertFalse(core.core.openJobs.contains("job1"))
        XCTAssertEqual(Self.lifecycle(core.handle(.indexWritten("job1", problem: nil))), [], "a job ends once")
    }

    func testAJobCancelledWholeEndsCancelledWithoutWillFinish() {
        let core = CoreHarness()
        let job = newJob("job1", photos: 3)
        core.handle(.jobOpened(job))
        XCTAssertEqual(Self.lifecycle(core.handle(.cancel(job: "job1", names: []))), ["journal job1", "write the index of job1"])
        XCTAssertEqual(Self.lifecycle(core.handle(.indexWritten("job1", problem: nil))), ["job1 ended"])
        XCTAssertEqual(job.phase, .cancelled)
    }

    func testAnIndexNotWrittenWithinTheWriteTimeoutEndsTheJobWithoutIt() {
        let core = CoreHarness()
        let job = newJob("job1", photos: 1)
        core.handle(.jobOpened(job))
        XCTAssertEqual(Self.lifecycle(core.handle(written("job1", 0))), ["job1 willFinish", "write the index of job1"])
        core.advance(4)
        XCTAssertEqual(Self.lifecycle(core.handle(.writesOverdue(limit: 5))), [], "within the limit it waits")
        core.advance(2)
        let given = core.handle(.writesOverdue(limit: 5))
        XCTAssertEqual(Self.lifecycle(given), ["job1 ended without its index"])
        guard case .jobFinished(_, let problem)? = given.first(where: { if case .jobFinished = $0 { return true } else { return false } }) else {
            return XCTFail("no end")
        }
        XCTAssertTrue(problem?.contains("index.json was not written in /out/job1 within 5 s") == true, problem ?? "")
        XCTAssertEqual(job.phase, .didFinish)
        XCTAssertEqual(Self.lifecycle(core.handle(.indexWritten("job1", problem: nil))), [], "the late answer changes nothing")
    }

    func testOnlyTheLastFinishedJobsAreKeptAndNoOpenJobIsForgotten() {
        let core = CoreHarness(settings: .init(coordinatorID: "test", finishedJobsKept: 2))
        let open = newJob("open", photos: 1)
        core.handle(.jobOpened(open))
        var lines: [String] = []
        for id in ["job1", "job2", "job3"] {
            core.handle(.jobOpened(newJob(id, photos: 1)))
            core.handle(written(id, 0))
            lines += Self.lifecycle(core.handle(.indexWritten(id, problem: nil)))
        }
        XCTAssertEqual(lines, ["job1 ended", "job2 ended", "job3 ended", "forget job1"])
        XCTAssertNil(core.core.jobs["job1"])
        XCTAssertEqual(core.core.jobOrder, ["open", "job2", "job3"], "the open job stays, however old")
    }

    /// Two jobs whose indexes are given up in one write check, with one finished job kept: the
    /// first ends and is forgotten in the same event. Its end still carries the job itself, for
    /// the shell to journal and to send its summary (found by `cluster simulate`, seed 9651).
    func testAJobForgottenInTheEventThatEndsItStillEndsWithItsSummary() {
        let core = CoreHarness(settings: .init(coordinatorID: "test", finishedJobsKept: 1))
        let (first, second) = (newJob("job1", photos: 1), newJob("job2", photos: 1))
        for job in [first, second] {
            core.handle(.jobOpened(job))
            core.handle(written(job.id, 0))
        }
        core.advance(6)
        let actions = core.handle(.writesOverdue(limit: 5))
        XCTAssertEqual(Self.lifecycle(actions), ["job1 ended without its index", "job2 ended without its index", "forget job1"])
        let ended = actions.compactMap { action -> Job? in
            if case .jobFinished(let job, _) = action { return job } else { return nil }
        }
        XCTAssertTrue(ended.first === first, "the action holds the job, which the core no longer has")
        XCTAssertNil(core.core.jobs["job1"])
        XCTAssertEqual(first.phase, .didFinish)
    }

    func testARestoredJobGoesOnWhereItStopped() {
        let core = CoreHarness(settings: .init(coordinatorID: "test", finishedJobsKept: 1))
        let (old, recent) = (newJob("old", photos: 1), newJob("recent", photos: 1))
        for job in [old, recent] {
            job.markDone(0, format: .jpeg, width: 1, height: 1)
            job.enter(.didFinish, at: Date(timeIntervalSince1970: 0))
        }
        let settled = newJob("settled", photos: 2)
        settled.markDone(0, format: .jpeg, width: 1, height: 1)
        settled.markFailed(1, stage: "decode", reason: "broken")
        let running = newJob("running", photos: 2)
        running.markDone(0, format: .jpeg, width: 1, height: 1)

        let actions = core.handle(.jobsRestored([old, recent, settled, running], finishOrder: ["old", "recent"]))
        XCTAssertEqual(Self.lifecycle(actions), [
            "journal settled", "journal running", "forget old",
            // Stopped between its last photo and its end: it ends now.
            "settled willFinish", "write the index of settled",
        ])
        XCTAssertEqual(Self.lifecycle(core.handle(.indexWritten("settled", problem: nil))), ["settled ended", "forget recent"])
        XCTAssertEqual(running.phase, .preparation, "the job with a photo left goes on")
        XCTAssertTrue(core.core.openJobs.contains("running"))
    }

    func testAFileWrittenForAPhotoSettledMeanwhileIsRemoved() {
        let core = CoreHarness()
        core.handle(.jobOpened(newJob("job1", photos: 3)))
        core.handle(.cancel(job: "job1", names: ["p1"]))
        XCTAssertEqual(Self.lifecycle(core.handle(written("job1", 1))), ["remove job1/p1.jpg"], "cancelled while it was written")
        XCTAssertEqual(Self.lifecycle(core.handle(written("job1", 0))), [], "a photo still open keeps its file")
        XCTAssertEqual(
            Self.lifecycle(core.handle(written("job1", 2, error: CocoaError(.fileWriteUnknown)))), ["job1 willFinish", "write the index of job1"],
            "a failed write left no file to remove; its photo fails, the last")
    }
}
