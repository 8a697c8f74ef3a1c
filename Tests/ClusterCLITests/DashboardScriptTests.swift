import Foundation
import PhotoClusterTestSupport
import XCTest

/// The dashboard's JavaScript on its own (Sources/PhotoClusterDashboard/Web): ESLint finds
/// nothing in it or in its tests, and its logic (the viewport from the scroll position, the
/// charts' scales, the one request function) passes Tests/Dashboard/*.test.js under node.
final class DashboardScriptTests: XCTestCase {
    private let web = Repository.root.appendingPathComponent("Sources/PhotoClusterDashboard/Web")
    private let tests = Repository.root.appendingPathComponent("Tests/Dashboard")

    private func files(in directory: URL, endingWith suffix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(suffix) }.sorted()
            .map { directory.appendingPathComponent($0).path }
    }

    func testTheScriptsPassESLint() throws {
        _ = try requireTool("eslint")
        let scripts = try files(in: web, endingWith: ".js") + files(in: tests, endingWith: ".js")
        XCTAssertGreaterThanOrEqual(scripts.count, 11, "the pages' seven scripts and their tests")
        // Debian's eslint finds its modules through NODE_PATH when node is not Debian's own; it
        // lints only files under its working directory.
        let command = "cd \"$0\" && NODE_PATH=/usr/share/nodejs exec eslint -f unix --no-eslintrc -c Tests/Dashboard/eslintrc.json \"$@\""
        let lint = try Tool.run("/bin/sh", ["-c", command, Repository.root.path] + scripts)
        XCTAssertEqual(lint.status, 0, "eslint:\n\(lint.output)")
    }

    func testTheViewportAndChartLogicPassTheirTests() throws {
        let node = try requireTool("node")
        let testFiles = try files(in: tests, endingWith: ".test.js")
        XCTAssertEqual(testFiles.count, 4, "\(testFiles)")
        let run = try Tool.run(node, ["--test"] + testFiles)
        XCTAssertEqual(run.status, 0, run.output)
        let passed = run.output.split(separator: "\n").first { $0.hasPrefix("# pass ") }.flatMap { Int($0.dropFirst(7)) } ?? 0
        XCTAssertGreaterThanOrEqual(passed, 20, run.output)
        XCTAssertTrue(run.output.contains("# fail 0"), run.output)
    }
}
