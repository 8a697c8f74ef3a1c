import Foundation
import PhotoClusterProto
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterCoordinator
@testable import PhotoClusterScheduling

/// What the coordinator tells a client of is on the disk first: a job acknowledged as accepted
/// commits with a full flush (WAL with `synchronous=NORMAL` may lose the last commits in a power
/// cut), while photo outcomes stay cheap: one lost only makes its photo run again.
final class JournalDurabilityTests: XCTestCase {
    private var state: URL!

    override func setUp() {
        state = Repository.temporaryDirectory("journal-durability")
    }

    override func tearDown() {
        if let state { try? FileManager.default.removeItem(at: state) }
    }

    func testTheAcceptCommitsWithAFullFlushAndPhotoOutcomesDoNot() throws {
        let journal = try Journal(directory: state)
        let database = try XCTUnwrap(journal.database as? SQLiteDatabase)
        var levels: [Int64] = []
        // 1 is NORMAL, 2 is FULL, read on the journal's own connection just before each commit.
        database.willCommit = { database in
            levels.append((try? database.query("PRAGMA synchronous").first?.first?.int) ?? -1)
        }
        let submit = try ClusterHarness.submit([("a", "http://127.0.0.1:9/a.jpg")], out: state)
        let job = Job(id: "job-durable", submit: submit, outputDirectory: state, now: Date())
        try journal.recordJob(job, submit: submit)
        XCTAssertEqual(levels, [2], "the accepted job was committed without a full flush")

        levels = []
        job.markFailed(0, stage: "download", reason: "HTTP 404")
        try journal.recordPhotos([job.photos[0]], of: job)
        XCTAssertEqual(levels, [1], "a photo's outcome paid for a full flush")
        XCTAssertEqual(try database.query("PRAGMA synchronous").first?.first?.int, 1, "the connection stays at NORMAL after the accept")
    }
}
