import Foundation
import PhotoClusterCore
import XCTest

final class DurableFileTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("durable-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    func testAWrittenFileHoldsItsBytesAndNoTemporaryFileIsLeft() throws {
        let destination = directory.appendingPathComponent("photo.jpg")
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        try DurableFile.write(bytes, to: destination, tag: "job-1")
        XCTAssertEqual(try Data(contentsOf: destination), bytes)
        XCTAssertEqual(try entries(), ["photo.jpg"])
    }

    func testRewritingADestinationReplacesItWhole() throws {
        let destination = directory.appendingPathComponent("photo.jpg")
        try DurableFile.write(Data(repeating: 9, count: 5000), to: destination, tag: "first")
        try DurableFile.write(Data([1]), to: destination, tag: "second")
        XCTAssertEqual(try Data(contentsOf: destination), Data([1]))
        try DurableFile.write(Data(), to: destination, tag: "third")
        XCTAssertEqual(try Data(contentsOf: destination), Data())
    }

    func testAFailureNamesThePathAndTheReasonAndLeavesNothing() throws {
        let missing = directory.appendingPathComponent("no-such-directory/photo.jpg")
        XCTAssertThrowsError(try DurableFile.write(Data([1, 2]), to: missing, tag: "t")) { error in
            XCTAssertEqual((error as? DurableFile.Failure)?.path, missing.path)
            XCTAssertEqual("\(error)", "cannot write \(missing.path): No such file or directory")
        }
        // A directory where the file should go: the temporary file is written, the rename fails.
        let occupied = directory.appendingPathComponent("taken.jpg")
        try FileManager.default.createDirectory(at: occupied.appendingPathComponent("inside"), withIntermediateDirectories: true)
        XCTAssertThrowsError(try DurableFile.write(Data([3]), to: occupied, tag: "t")) { error in
            XCTAssertTrue("\(error)".hasPrefix("cannot write \(occupied.path): "), "\(error)")
        }
        XCTAssertEqual(try entries(), ["taken.jpg"], "the temporary file of a failed rename is removed")
    }

    func testAPrivateFileGetsExactlyItsPermissionsAndNeedsANewTemporaryFile() throws {
        let destination = directory.appendingPathComponent("secret.key")
        let oldMask = umask(0o077)
        defer { umask(oldMask) }
        try DurableFile.write(Data("s3cret".utf8), to: destination, tag: "a", permissions: 0o640)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o640, "the umask does not narrow the bits asked for")
        // Something already at the temporary name (a planted link, say) is never written through.
        let planted = directory.appendingPathComponent(".secret.key.b.tmp")
        try Data("planted".utf8).write(to: planted)
        XCTAssertThrowsError(try DurableFile.write(Data("new".utf8), to: destination, tag: "b", permissions: 0o600)) { error in
            XCTAssertTrue("\(error)".contains("File exists"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: destination), Data("s3cret".utf8))
        XCTAssertEqual(try Data(contentsOf: planted), Data("planted".utf8), "a file it did not make is left alone")
    }
}
