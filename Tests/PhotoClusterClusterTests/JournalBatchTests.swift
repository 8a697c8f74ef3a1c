import Foundation
import PhotoClusterTestSupport
import XCTest

@testable import PhotoClusterCoordinator

/// A coordinator's turn of the loop writes through one transaction: its writes appear together
/// at the commit (a reader on another connection sees none of them before), a failed part rolls
/// back alone, and a durable commit takes what the batch holds with it.
final class JournalBatchTests: XCTestCase {
    private var directory: URL!
    private var path: String { directory.appendingPathComponent("batch.sqlite").path }

    override func setUpWithError() throws {
        directory = Repository.temporaryDirectory("journal-batch")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    private struct Refused: Error {}

    private func values(_ database: SQLiteDatabase) throws -> [Int64] {
        try database.query("SELECT v FROM t ORDER BY v").compactMap { $0.first?.int }
    }

    func testABatchsWritesAppearTogetherAtItsCommitWithoutAFailedPart() throws {
        let writer = try SQLiteDatabase(path: path)
        try writer.execute("CREATE TABLE t (v INTEGER)")
        let reader = try SQLiteDatabase(path: path)

        try writer.beginBatch()
        try writer.transaction { try writer.execute("INSERT INTO t VALUES (1)") }
        try writer.execute("INSERT INTO t VALUES (2)")
        XCTAssertThrowsError(try writer.transaction {
            try writer.execute("INSERT INTO t VALUES (3)")
            throw Refused()
        })
        try writer.transaction { try writer.execute("INSERT INTO t VALUES (4)") }
        XCTAssertEqual(try values(reader), [], "another connection saw writes before the commit")
        XCTAssertTrue(writer.batchIsOpen)

        try writer.commitBatch()
        XCTAssertFalse(writer.batchIsOpen)
        XCTAssertEqual(try values(reader), [1, 2, 4], "the batch committed whole, without its failed part")
    }

    func testADurableCommitTakesTheBatchWithIt() throws {
        let writer = try SQLiteDatabase(path: path)
        try writer.execute("CREATE TABLE t (v INTEGER)")
        let reader = try SQLiteDatabase(path: path)
        var levels: [Int64] = []
        writer.willCommit = { database in levels.append((try? database.query("PRAGMA synchronous").first?.first?.int) ?? -1) }

        try writer.beginBatch()
        try writer.execute("INSERT INTO t VALUES (1)")
        try writer.transaction(synchronous: .full) { try writer.execute("INSERT INTO t VALUES (2)") }
        XCTAssertFalse(writer.batchIsOpen, "the durable commit ended the batch")
        XCTAssertEqual(try values(reader), [1, 2])
        XCTAssertEqual(levels, [1, 2], "the batch committed as usual, then the durable transaction with a full flush")
    }
}
