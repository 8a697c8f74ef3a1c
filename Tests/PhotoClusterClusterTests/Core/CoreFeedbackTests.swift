import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterProtocol
import XCTest

@testable import PhotoClusterScheduling

/// The core returns actions and hears back through events: what a shell used to answer (a send
/// refused) or to be asked (whether clients hear of every photo) arrives after `handle` returned.
final class CoreFeedbackTests: XCTestCase {
    /// Actions wait in the core, in order, until the shell takes them; taking empties the buffer.
    func testActionsWaitUntilTheShellTakesThem() {
        let core = CoordinatorCore(settings: .init(coordinatorID: "test"), now: .now)
        var hello = Photocluster_V1_WorkerToCoordinator()
        hello.body = .hello(.with { $0.workerID = "w"; $0.concurrency = 1; $0.protocolVersion = ProtocolVersions.current; $0.incarnation = "w-1" })
        core.handle(.fromWorker(id: "w", key: nil, message: hello, photos: []), now: .now, wallClock: Date())
        XCTAssertTrue(core.hasActions)
        var taken: [CoordinatorAction] = []
        core.takeActions(into: &taken)
        XCTAssertFalse(core.hasActions)
        XCTAssertEqual(CoreHarness.messages(in: taken), ["w: welcome"])
        core.takeActions(into: &taken)
        XCTAssertTrue(taken.isEmpty, "nothing is handed over twice")
    }

    /// A refused batch comes back as `.graphsRefused`: its photo is queued again, its credit and
    /// sequence number are the worker's again, the attempt is no longer believed sent, and the
    /// worker gets nothing more until it is heard from.
    func testARefusedBatchIsUndoneWhenItsRefusalComesBack() {
        let core = CoreHarness()
        core.hello("w")
        core.credit("w", 2)
        core.refuseSendsTo = ["w"]
        core.submit(photos: 1)
        let ref = PhotoRef(job: "job1", index: 0)
        let worker = core.core.workers["w"]!
        XCTAssertEqual(core.core.jobs["job1"]?.photo(0)?.worker, WorkerNumber.none, "back in the queue")
        XCTAssertEqual(worker.credits, 2)
        XCTAssertEqual(worker.assignSequence, 0, "the number goes to the next batch")
        XCTAssertTrue(worker.inFlight.isEmpty)
        XCTAssertTrue(worker.unreachable)
        XCTAssertFalse(core.core.attemptsSent.wasSent(ref, attempt: 1, to: "w"), "a result for it would not be believed")
        XCTAssertTrue(CoreHarness.graphs(in: core.handle(.retryTick)).isEmpty, "nothing is sent to an unreachable worker")

        core.refuseSendsTo = []
        let sent = CoreHarness.graphs(in: core.credit("w", 0))
        XCTAssertEqual(sent.map(\.sequence), [1])
        XCTAssertEqual(sent.flatMap(\.photos), ["job1/0@2"])
        XCTAssertTrue(core.core.attemptsSent.wasSent(ref, attempt: 2, to: "w"))
    }

    /// Photos settled together are told one by one only for a job whose clients hear of every
    /// photo, as the shell says with `.clientsHearEveryPhoto`; each action carries the counts as
    /// they were when it was decided, not when the shell carries it out.
    func testPhotosAreToldOneByOneOnlyWhileAClientHearsOfEveryPhoto() {
        let core = CoreHarness()
        let job = core.submit(photos: 4)
        /// The counts each `.photosSettled` carries, and where the job's end begins (`.writeIndex`).
        func settleTwo(from index: UInt32) -> [String] {
            let write = WrittenResult(
                result: .with { $0.jobID = job; $0.photoIndex = index; $0.format = .jpeg }, worker: "w",
                targets: [(index, "p\(index).jpg"), (index + 1, "p\(index + 1).jpg")], errors: [nil, nil])
            return core.handle(.resultsWritten([write])).compactMap { action in
                switch action {
                case .photosSettled(_, _, let progress): return "\(progress.done) settled"
                case .writeIndex: return "index"
                default: return nil
                }
            }
        }
        XCTAssertEqual(settleTwo(from: 0), ["2 settled"], "told together")
        core.handle(.clientsHearEveryPhoto(job: job, true))
        XCTAssertTrue(core.core.tellsEveryPhoto(of: job))
        XCTAssertEqual(settleTwo(from: 2), ["3 settled", "4 settled", "index"], "told one by one, each with the counts after it; the last begins the job's end")
        core.handle(.clientsHearEveryPhoto(job: job, false))
        XCTAssertFalse(core.core.tellsEveryPhoto(of: job))
    }
}
