import Foundation
import PhotoClusterTestSupport
import XCTest

/// The scheduling target (`Sources/PhotoClusterScheduling`: the core, its jobs, the lease model)
/// and the simulator's (`Sources/PhotoClusterSimulation`) open no socket and no file, read no
/// clock and draw no unseeded random number: what they do depends only on the events given and
/// the seed, which is what lets the simulator replay a seed step for step. And the core takes
/// events and returns actions: nothing in the scheduling target holds a reference to a shell or
/// calls one, so no event can reach the core while it decides another.
final class CorePurityTests: XCTestCase {
    /// Everything the target may import: no transport, storage, metrics or journal module.
    private static let allowedImports: Set<String> = ["Foundation", "PhotoClusterCore", "PhotoClusterProto", "PhotoClusterProtocol", "Logging"]
    /// The simulator runs the core, and nothing else of the product's coordinator.
    private static let simulatorImports = allowedImports.union(["PhotoClusterScheduling"])
    private static let forbidden = [
        "ZMQ", "FileManager", "FileHandle", "fopen", "posix_", "Date()", "= .now", "(.now", ": .now", "Instant.now", "ContinuousClock",
        "DispatchQueue", "Thread.", "Thread(", "UUID()", "ProcessInfo", "getenv", "SystemRandomNumberGenerator",
    ]

    /// What would let the core call out: a reference to its shell (held `unowned` or `weak`, through
    /// a class-bound protocol, or the protocol the shells used to conform to), a call through it,
    /// or a stored closure.
    private static let callingOut = ["CoordinatorShell", "unowned", "weak ", ": AnyObject", "shell.", "shell:"]
    private static let storedClosure = #/^\s*((package|private|fileprivate|internal|public|static|lazy)(\(set\))? )*(var|let) \w+: [^=]*\) (async )?(throws )?->/#

    func testTheSchedulingAndSimulatorTargetsReadNoClockAndDoNoIO() throws {
        try forEachCodeLine(of: ["PhotoClusterScheduling", "PhotoClusterSimulation"]) { place, line in
            if line.hasPrefix("import ") || line.hasPrefix("@testable import ") {
                let module = String(line.split(separator: " ").last ?? "")
                let allowed = place.hasPrefix("PhotoClusterSimulation/") ? Self.simulatorImports : Self.allowedImports
                XCTAssertTrue(allowed.contains(module), "\(place) imports \(module)")
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

    /// The core returns actions and learns what became of them from events (`.graphsRefused`):
    /// no type of the target keeps a way to call its shell.
    func testNothingInTheSchedulingTargetHoldsOrCallsAShell() throws {
        try forEachCodeLine(of: ["PhotoClusterScheduling"]) { place, line in
            for token in Self.callingOut where line.contains(token) {
                XCTFail("\(place) may call out to a shell (\(token)): \(line.trimmingCharacters(in: .whitespaces))")
            }
            if line.contains(Self.storedClosure) {
                XCTFail("\(place) stores a closure, which could call out: \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
    }

    /// Every line of the targets' files that is not a comment, with its target, file and line number.
    private func forEachCodeLine(of targets: [String], _ body: (_ place: String, _ line: Substring) throws -> Void) throws {
        for target in targets {
            let folder = Repository.root.appendingPathComponent("Sources/\(target)")
            let files = try XCTUnwrap(FileManager.default.subpaths(atPath: folder.path)).filter { $0.hasSuffix(".swift") }
            XCTAssertGreaterThan(files.count, 10, target)
            for file in files {
                let lines = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).split(separator: "\n")
                for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    try body("\(target)/\(file):\(number + 1)", line)
                }
            }
        }
    }
}
