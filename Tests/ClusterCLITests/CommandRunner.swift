import Foundation
import PhotoClusterTestSupport
import XCTest

/// Runs the built `cluster` binary as a user would, capturing its output.
struct CommandResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

enum CommandRunner {
    static func run(_ arguments: [String], in directory: URL? = nil, timeout: TimeInterval = 60, viaIP: Bool = false) throws -> CommandResult {
        let process = viaIP
            ? try RunningCommand(binary: NetworkLab.ipTool, arguments: arguments, directory: directory)
            : try start(arguments, in: directory)
        let deadline = Date().addingTimeInterval(timeout)
        while process.process.isRunning && Date() < deadline { usleep(20_000) }
        if process.process.isRunning {
            process.process.terminate()
            throw XCTSkip("cluster \(arguments.joined(separator: " ")) did not finish in \(timeout) s")
        }
        return process.finish()
    }

    static func start(_ arguments: [String], in directory: URL? = nil) throws -> RunningCommand {
        let binary = Repository.clusterBinary
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw XCTSkip("\(binary.path) is missing: `make test` builds it first (swift build --product cluster)")
        }
        return try RunningCommand(binary: binary, arguments: arguments, directory: directory)
    }
}

/// A `cluster` process; its output is collected into files so pipes can never fill up.
final class RunningCommand {
    let process = Process()
    private let stdoutFile: URL
    private let stderrFile: URL

    init(binary: URL, arguments: [String], directory: URL?) throws {
        let logs = Repository.temporaryDirectory("cmd")
        stdoutFile = logs.appendingPathComponent("stdout")
        stderrFile = logs.appendingPathComponent("stderr")
        FileManager.default.createFile(atPath: stdoutFile.path, contents: nil)
        FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        process.executableURL = binary
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = try FileHandle(forWritingTo: stdoutFile)
        process.standardError = try FileHandle(forWritingTo: stderrFile)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var stderrSoFar: String { (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "" }

    func stop() {
        if process.isRunning { process.interrupt() }
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    func finish() -> CommandResult {
        process.waitUntilExit()
        let result = CommandResult(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: stdoutFile, encoding: .utf8)) ?? "",
            stderr: stderrSoFar)
        try? FileManager.default.removeItem(at: stdoutFile.deletingLastPathComponent())
        return result
    }
}
