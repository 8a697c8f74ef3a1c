import Foundation
import PhotoClusterTestSupport
import XCTest

/// The scheduling core (`Sources/PhotoClusterCoordinator/Scheduler`) opens no socket and no
/// file and reads no clock: what it does depends only on the events it is given, which is what
/// lets the simulator replay a seed step for step.
final class CorePurityTests: XCTestCase {
    private static let forbidden = [
        "import PhotoClusterTransport", "import CZeroMQ", "import PhotoClusterStorage", "import PhotoClusterMetrics",
        "ZMQ", "FileManager", "FileHandle", "fopen", "posix_", "Date()", "= .now", "(.now", ": .now", "Instant.now", "ContinuousClock",
        "DispatchQueue", "Thread", "UUID()", "ProcessInfo", "random", "getenv",
    ]

    func testTheCoreReadsNoClockAndDoesNoIO() throws {
        let folder = Repository.root.appendingPathComponent("Sources/PhotoClusterCoordinator/Scheduler")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 10)
        for file in files {
            let lines = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).split(separator: "\n")
            for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for token in Self.forbidden where line.contains(token) {
                    XCTFail("\(file):\(number + 1) uses \(token): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
    }
}
