import XCTest

@testable import PhotoClusterScheduling

/// The leader's and the standby's side of the lease (`LeaderLease`, `LeaseCandidate`): when a
/// leader may act, when it renews, and that stepping down is for ever.
final class LeaderLeaseTests: XCTestCase {
    private let grant = LeaseGrant(token: 7, ttl: 15)

    func testTheLeaseIsCountedFromTheRequestNotTheAnswer() {
        // Sent at 100, answered at 104: the deadline is 100 + 15 − 1, not 104 + 15 − 1.
        let lease = LeaderLease(grant, requestSent: 100, margin: 1)
        XCTAssertEqual(lease.deadline, 114)
        XCTAssertTrue(lease.mayAct(at: 104))
        XCTAssertTrue(lease.mayAct(at: 113.999))
        XCTAssertFalse(lease.mayAct(at: 114))
        XCTAssertFalse(lease.mayAct(at: 200))
    }

    func testARenewIsDueEveryThirdOfTheLeaseAndExtendsItFromItsRequest() {
        var lease = LeaderLease(grant, requestSent: 0, margin: 1)
        XCTAssertFalse(lease.renewDue(at: 4.9))
        XCTAssertTrue(lease.renewDue(at: 5))
        lease.renewSent(at: 5)
        XCTAssertFalse(lease.renewDue(at: 6), "one renew on its way at a time")
        lease.renewed(LeaseGrant(token: 7, ttl: 15), requestSent: 5)
        XCTAssertEqual(lease.deadline, 19)
        XCTAssertTrue(lease.mayAct(at: 18))
        XCTAssertFalse(lease.renewDue(at: 9.9))
        XCTAssertTrue(lease.renewDue(at: 10))
    }

    func testAnUnansweredRenewIsSentAgainAThirdLaterAndTheLeaseStillEnds() {
        var lease = LeaderLease(grant, requestSent: 0, margin: 1)
        lease.renewSent(at: 5)
        XCTAssertTrue(lease.renewDue(at: 10))
        lease.renewSent(at: 10)
        // Neither is answered: the lease ends at its first request's deadline.
        XCTAssertTrue(lease.mayAct(at: 13.9))
        XCTAssertFalse(lease.mayAct(at: 14))
    }

    func testALateAnswerToAnOlderRenewDoesNotMoveTheLeaseBack() {
        var lease = LeaderLease(grant, requestSent: 0, margin: 1)
        lease.renewed(grant, requestSent: 10)
        lease.renewed(grant, requestSent: 5)
        XCTAssertEqual(lease.deadline, 24)
    }

    func testSteppingDownIsForEver() {
        var lease = LeaderLease(grant, requestSent: 0, margin: 1)
        lease.stepDown()
        XCTAssertFalse(lease.mayAct(at: 1))
        XCTAssertFalse(lease.renewDue(at: 5))
        lease.renewed(grant, requestSent: 2)
        XCTAssertFalse(lease.mayAct(at: 3), "a renew granted after stepping down changes nothing")
    }

    func testAGrantUnderAnotherTokenMakesTheLeaderStepDown() {
        var lease = LeaderLease(grant, requestSent: 0, margin: 1)
        lease.renewed(LeaseGrant(token: 8, ttl: 15), requestSent: 5)
        XCTAssertTrue(lease.steppedDown)
        XCTAssertFalse(lease.mayAct(at: 6))
    }

    func testAStandbyPollsEveryThirdOfTheLeaseAndLeadsFromItsWinningRequest() {
        var candidate = LeaseCandidate(ttl: 15, margin: 1, startingAt: 3)
        XCTAssertTrue(candidate.acquireDue(at: 3))
        candidate.acquireSent(at: 3)
        XCTAssertFalse(candidate.acquireDue(at: 7.9))
        XCTAssertTrue(candidate.acquireDue(at: 8))
        let lease = candidate.lead(with: LeaseGrant(token: 2, ttl: 15), requestSent: 8)
        XCTAssertEqual(lease.token, 2)
        XCTAssertEqual(lease.deadline, 22)
        XCTAssertTrue(lease.mayAct(at: 9))
    }
}
