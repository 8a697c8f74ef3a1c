import Foundation
import PhotoClusterTestSupport
import XCTest

/// The scheduling target (`Sources/PhotoClusterScheduling`: the core, its jobs and the simulator)
/// opens no socket and no file, reads no clock and draws no unseeded random number: what it does
/// depends only on the events it is given, which is what lets the simulator replay a seed step
/// for step.
final class CorePurityTests: XCTestCase {
    /// Everything the target may import: no transport, storage, metrics or journal module.
    private static let allowedImports: Set<String> = ["Foundation", "PhotoClusterCore", "PhotoClusterProto", "PhotoClusterProtocol", "Logging"]
    private static let forbidden = [
        "ZMQ", "FileManager", "FileHandle", "fopen", "posix_", "Date()", "= .now", "(.now", ": .now", "Instant.now", "ContinuousClock",
        "DispatchQueue", "Thread.", "Thread(", "UUID()", "ProcessInfo", "getenv", "SystemRandomNumberGenerator",
    ]

    func testTheSchedulingTargetReadsNoClockAndDoesNoIO() throws {
        let folder = Repository.root.appendingPathComponent("Sources/PhotoClusterScheduling")
        let files = try XCTUnwrap(FileManager.default.subpaths(atPath: folder.path)).filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 30)
        XCTAssertTrue(files.contains("Scheduler/CoordinatorCore.swift"))
        for file in files {
            let lines = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).split(separator: "\n")
            for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                let place = "\(file):\(number + 1)"
                if line.hasPrefix("import ") || line.hasPrefix("@testable import ") {
                    let module = String(line.split(separator: " ").last ?? "")
                    XCTAssertTrue(Self.allowedImports.contains(module), "\(place) imports \(module)")
                }
                for token in Self.forbidden where line.contains(token) {
                    XCTFail("\(place) uses \(token): \(line.trimmingCharacters(in: .whitespaces))")
                }
                // Random numbers come only from the seed's generator.
                for draw in [".random(", ".randomElement(", ".shuffled(", ".shuffle("] where line.contains(draw) && !line.contains("using:") {
                    XCTFail("\(place) draws a random number without the seeded generator: \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
    }
}
