import Foundation
import PhotoClusterStorage
import PhotoClusterTestSupport
import XCTest

/// A worker writes a job's shared directory only inside its --shared-root, symbolic links resolved.
final class SharedOutputRootsTests: XCTestCase {
    private var scratch: URL!

    override func setUp() { scratch = Repository.temporaryDirectory("shared") }
    override func tearDown() { try? FileManager.default.removeItem(at: scratch) }

    func testADirectoryInsideTheRootIsMadeAndWrittenDurably() throws {
        let root = scratch.appendingPathComponent("mnt")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let roots = try SharedOutputRoots([root.path])
        let directory = try roots.directory(for: root.path + "/jobs/2026")
        try SharedOutputRoots.write(Data("bytes".utf8), named: "cat.jpg", in: directory, tag: "job-1-1")
        XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent("cat.jpg")), Data("bytes".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["cat.jpg"], "no temporary file is left")
    }

    func testPathsOutsideTheRootsOrThroughASymlinkOutAreRefused() throws {
        let root = scratch.appendingPathComponent("mnt"), outside = scratch.appendingPathComponent("elsewhere")
        for directory in [root, outside] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("escape"), withDestinationURL: outside)
        let roots = try SharedOutputRoots([root.path])
        XCTAssertThrowsError(try roots.directory(for: outside.path)) { XCTAssertTrue("\($0)".contains("outside this worker's shared roots"), "\($0)") }
        XCTAssertThrowsError(try roots.directory(for: root.path + "x/jobs")) { XCTAssertTrue("\($0)".contains("outside"), "\($0)") }
        XCTAssertThrowsError(try roots.directory(for: root.path + "/escape/jobs")) {
            XCTAssertTrue("\($0)".contains("symbolic link takes it outside the shared root"), "\($0)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: outside.appendingPathComponent("jobs").path), "nothing is made outside the root")
        XCTAssertThrowsError(try SharedOutputRoots.none.directory(for: root.path)) { XCTAssertTrue("\($0)".contains("--shared-root"), "\($0)") }
        XCTAssertThrowsError(try SharedOutputRoots([scratch.appendingPathComponent("missing").path])) { XCTAssertTrue("\($0)".contains("does not exist"), "\($0)") }
    }
}
