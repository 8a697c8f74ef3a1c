import Foundation
import PhotoClusterTestSupport
import XCTest

/// Runs an outside program (tmux, promtool, the browser driver, ip) to completion, as a
/// `ChildProcess` (spawned and reaped by pid: a daemon it forks cannot hold the wait up).
enum Tool {
    /// Runs `path` with `input` on its standard input and returns its status and its output and
    /// error together. A program still running after `timeout` seconds is killed; that fails the
    /// test and reads as status -1.
    static func run(_ path: String, _ arguments: [String], input: String = "", timeout: TimeInterval = 60,
                    file: StaticString = #filePath, line: UInt = #line) throws -> (status: Int32, output: String) {
        let scratch = Repository.temporaryDirectory("tool")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inputFile = scratch.appendingPathComponent("input")
        let outputFile = scratch.appendingPathComponent("output")
        try Data(input.utf8).write(to: inputFile)

        let child = try ChildProcess(path, arguments, input: inputFile, output: outputFile)
        let ended = child.waitForExit(timeout: timeout)
        if !ended {
            child.killAndReap()
            XCTFail("\(path) \(arguments.joined(separator: " ")) still ran after \(Int(timeout)) s", file: file, line: line)
        }
        let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        return (ended ? child.status ?? -1 : -1, output)
    }
}
