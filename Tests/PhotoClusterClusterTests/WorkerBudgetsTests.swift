import PhotoClusterCore
@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling
import XCTest

/// The bounds a worker is held to, whatever it claims of itself.
final class WorkerBudgetsTests: XCTestCase {
    private func worker(concurrency: UInt32, budgets: WorkerBudgets = WorkerBudgets()) -> WorkerRecord {
        WorkerRecord(
            id: "w1", number: WorkerNumber(value: 1), key: nil, host: "h", concurrency: concurrency,
            creditLimit: budgets.creditLimit(announced: concurrency), incarnation: "i", filters: [:], protocolVersion: 2, helloNumber: 1, lastSeen: .now)
    }

    func testCreditIsBoundedByTheWindowOfTheBelievedConcurrency() {
        let budgets = WorkerBudgets(maxConcurrency: 8)
        XCTAssertEqual(budgets.creditLimit(announced: 2), 6, "three graphs a stage thread")
        XCTAssertEqual(budgets.creditLimit(announced: 1), 4, "at least four")
        XCTAssertEqual(budgets.creditLimit(announced: 1_000_000), 24, "a worker announcing a million is believed to have 8")
        XCTAssertEqual(budgets.creditLimit(announced: 0), 4)
        // The worker grants the same window by itself: a well-behaved worker never meets the bound.
        XCTAssertEqual(WorkerBudgets().creditLimit(announced: 4), CreditWindow.graphs(concurrency: 4))
    }

    func testAWorkerThatGrantsTooMuchIsHeldToItsLimitWithWhatItHolds() {
        let record = worker(concurrency: 2)  // limit 6
        XCTAssertFalse(record.grantCredit(6))
        XCTAssertEqual(record.credits, 6)
        record.spendCredit(holding: [PhotoRef(job: "j", index: 0), PhotoRef(job: "j", index: 1)])
        XCTAssertEqual(record.credits, 4)
        XCTAssertTrue(record.grantCredit(1_000), "claimed more than its window")
        XCTAssertEqual(record.credits, 4, "two photos held and four credits: the window is full")
        record.release(PhotoRef(job: "j", index: 0))
        XCTAssertFalse(record.grantCredit(1), "a photo ended gives back its credit")
        XCTAssertEqual(record.credits, 5)
    }

    func testTheResultLimitIsTheOperatorsAndNeverOverTheMessageLimit() {
        XCTAssertEqual(WorkerBudgets().resultLimit(messageLimit: 256 << 20), 256 << 20)
        XCTAssertEqual(WorkerBudgets(maxResultBytes: 1_000).resultLimit(messageLimit: 256 << 20), 1_000)
        XCTAssertEqual(WorkerBudgets(maxResultBytes: 1 << 40).resultLimit(messageLimit: 256 << 20), 256 << 20)
    }

    func testAPhotoIsOverdueOnlyAfterTheTimeoutWithoutProgressAndNotWhilePaused() {
        let record = worker(concurrency: 2)
        let start = MonotonicInstant.now
        let quiet = PhotoRef(job: "a", index: 0)
        let working = PhotoRef(job: "a", index: 1)
        let suspended = PhotoRef(job: "s", index: 0)
        record.spendCredit(holding: [quiet, working, suspended])
        record.noteAssigned([quiet, working, suspended], sequence: 1, at: start)
        let paused = { (ref: PhotoRef) in ref.job == "s" }

        XCTAssertEqual(record.overdue(after: 10, now: start.advanced(by: .seconds(9)), isPaused: paused), [])
        record.heardOf(working, at: start.advanced(by: .seconds(9)))
        XCTAssertEqual(record.overdue(after: 10, now: start.advanced(by: .seconds(11)), isPaused: paused), [quiet],
            "progress starts the clock again; a suspended job's photo waits by design")
        // The suspended photo's clock started again when it was found paused, at 11 s.
        XCTAssertEqual(record.overdue(after: 10, now: start.advanced(by: .seconds(20)), isPaused: { _ in false }), [quiet, working])
        XCTAssertEqual(record.overdue(after: 10, now: start.advanced(by: .seconds(22)), isPaused: { _ in false }), [quiet, working, suspended].sorted { ($0.job, $0.index) < ($1.job, $1.index) })
        record.release(quiet)
        XCTAssertFalse(record.overdue(after: 10, now: start.advanced(by: .seconds(30)), isPaused: { _ in false }).contains(quiet), "a photo that left is forgotten")
    }
}
