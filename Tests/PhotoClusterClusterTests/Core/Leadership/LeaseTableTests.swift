import XCTest

@testable import PhotoClusterScheduling

/// The lease row's rules (`LeaseTable`), as the simulated journal and the SQL both follow them:
/// acquire only when free, renew only with the current token, release, and the fence.
final class LeaseTableTests: XCTestCase {
    func testTheFirstAcquireTakesTokenOneAndARunningLeaseIsRefused() {
        var table = LeaseTable()
        XCTAssertEqual(table.acquire(by: "a", ttl: 15, at: 0), LeaseGrant(token: 1, ttl: 15))
        XCTAssertNil(table.acquire(by: "b", ttl: 15, at: 14.9))
        XCTAssertNil(table.acquire(by: "a", ttl: 15, at: 1), "its holder renews; it does not acquire again")
        XCTAssertEqual(table.holder, "a")
        XCTAssertEqual(table.token, 1)
    }

    func testAnExpiredLeaseGoesToTheNextCandidateUnderANewToken() {
        var table = LeaseTable()
        _ = table.acquire(by: "a", ttl: 15, at: 0)
        XCTAssertEqual(table.acquire(by: "b", ttl: 15, at: 15), LeaseGrant(token: 2, ttl: 15))
        XCTAssertEqual(table.holder, "b")
        XCTAssertEqual(table.expiresAt, 30)
    }

    func testOnlyTheHolderOfTheCurrentTokenRenews() {
        var table = LeaseTable()
        _ = table.acquire(by: "a", ttl: 15, at: 0)
        XCTAssertEqual(table.renew(by: "a", token: 1, ttl: 15, at: 5), LeaseGrant(token: 1, ttl: 15))
        XCTAssertEqual(table.expiresAt, 20)
        XCTAssertNil(table.renew(by: "b", token: 1, ttl: 15, at: 6), "another holder")
        XCTAssertNil(table.renew(by: "a", token: 2, ttl: 15, at: 6), "another token")
        // Expired, and taken: the old leader's renew is refused.
        _ = table.acquire(by: "b", ttl: 15, at: 21)
        XCTAssertNil(table.renew(by: "a", token: 1, ttl: 15, at: 22))
        XCTAssertEqual(table.holder, "b")
    }

    func testAnExpiredLeaseThatNobodyTookIsRenewedUnderItsToken() {
        var table = LeaseTable()
        _ = table.acquire(by: "a", ttl: 15, at: 0)
        XCTAssertEqual(table.renew(by: "a", token: 1, ttl: 15, at: 16), LeaseGrant(token: 1, ttl: 15))
        XCTAssertNil(table.acquire(by: "b", ttl: 15, at: 17))
    }

    func testAReleasedLeaseIsFreeAtOnceAndAcceptsNoWrite() {
        var table = LeaseTable()
        _ = table.acquire(by: "a", ttl: 15, at: 0)
        table.release(by: "b", token: 1, at: 1)
        XCTAssertEqual(table.holder, "a", "only its holder releases it")
        table.release(by: "a", token: 1, at: 2)
        XCTAssertNil(table.holder)
        XCTAssertFalse(table.fence(1))
        XCTAssertEqual(table.acquire(by: "b", ttl: 15, at: 2), LeaseGrant(token: 2, ttl: 15))
    }

    func testTheFenceAcceptsOnlyTheCurrentToken() {
        var table = LeaseTable()
        XCTAssertFalse(table.fence(0), "nobody has led yet")
        _ = table.acquire(by: "a", ttl: 15, at: 0)
        XCTAssertTrue(table.fence(1))
        // Past its expiry, with nobody else: its writes are still the only ones.
        XCTAssertTrue(table.fence(1))
        _ = table.acquire(by: "b", ttl: 15, at: 30)
        XCTAssertFalse(table.fence(1), "a paused leader that wakes after a takeover writes nothing")
        XCTAssertTrue(table.fence(2))
    }
}
