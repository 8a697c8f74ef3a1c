@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling
import XCTest

/// The record of which worker each attempt of a photo was sent to.
final class AttemptLedgerTests: XCTestCase {
    private let photo = PhotoRef(job: "job-1", index: 3)

    func testAnAttemptIsBelievedFromItsWorkerUntilItsOutcome() {
        var ledger = AttemptLedger()
        ledger.recordSent(photo, attempt: 1, epoch: 1, to: "w1")
        XCTAssertTrue(ledger.wasSent(photo, attempt: 1, to: "w1"))
        XCTAssertTrue(ledger.wasSent(photo, attempt: 0, to: "w1"), "a report that names no attempt: any attempt of that worker")
        XCTAssertFalse(ledger.wasSent(photo, attempt: 1, to: "w2"))
        XCTAssertFalse(ledger.wasSent(photo, attempt: 2, to: "w1"))
        XCTAssertFalse(ledger.wasSent(PhotoRef(job: "job-1", index: 5), attempt: 1, to: "w1"))
        ledger.ended(photo, attempt: 1, on: "w1")
        XCTAssertFalse(ledger.wasSent(photo, attempt: 1, to: "w1"), "an outcome ends the attempt")
        XCTAssertEqual(ledger.count, 0)
    }

    func testEarlierAttemptsStayTheirWorkersUntilEachEnds() {
        var ledger = AttemptLedger()
        ledger.recordSent(photo, attempt: 1, epoch: 1, to: "w1")
        ledger.recordSent(photo, attempt: 2, epoch: 1, to: "w2")
        ledger.recordSent(photo, attempt: 3, epoch: 1, to: "w1")
        XCTAssertTrue(ledger.wasSent(photo, attempt: 1, to: "w1"))
        XCTAssertFalse(ledger.wasSent(photo, attempt: 1, to: "w2"))
        ledger.ended(photo, attempt: 1, on: "w1")
        XCTAssertTrue(ledger.wasSent(photo, attempt: 2, to: "w2"))
        XCTAssertTrue(ledger.wasSent(photo, attempt: 3, to: "w1"))
        XCTAssertTrue(ledger.wasSent(photo, attempt: 0, to: "w1"))
        ledger.ended(photo, attempt: 3, on: "w1")
        XCTAssertFalse(ledger.wasSent(photo, attempt: 0, to: "w1"))
        ledger.forget(photo)
        XCTAssertFalse(ledger.wasSent(photo, attempt: 2, to: "w2"), "a settled photo believes nothing")
    }

    /// A coordinator that restored a job sends its graphs at a higher epoch, under attempt numbers
    /// the one before it may have sent the same worker: an outcome naming the earlier epoch is
    /// not this coordinator's attempt.
    func testAnOutcomeOfAnotherEpochIsNotTheAttemptSent() {
        var ledger = AttemptLedger()
        ledger.recordSent(photo, attempt: 2, epoch: 5, to: "w1")
        XCTAssertTrue(ledger.wasSent(photo, attempt: 2, epoch: 5, to: "w1"))
        XCTAssertFalse(ledger.wasSent(photo, attempt: 2, epoch: 4, to: "w1"), "a graph of the coordinator before")
        XCTAssertTrue(ledger.wasSent(photo, attempt: 2, epoch: 0, to: "w1"), "a worker that does not say: any epoch")
        XCTAssertFalse(ledger.wasSent(photo, attempt: 2, epoch: 5, to: "w2"))
    }

    func testForgettingAJobForgetsOnlyItsPhotos() {
        var ledger = AttemptLedger()
        ledger.recordSent(photo, attempt: 1, epoch: 1, to: "w1")
        ledger.recordSent(PhotoRef(job: "job-2", index: 3), attempt: 1, epoch: 1, to: "w1")
        ledger.forget(job: "job-1")
        XCTAssertFalse(ledger.wasSent(photo, attempt: 1, to: "w1"))
        XCTAssertTrue(ledger.wasSent(PhotoRef(job: "job-2", index: 3), attempt: 1, to: "w1"))
    }
}
