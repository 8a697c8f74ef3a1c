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
    static func run(_ arguments: [String], timeout: TimeInterval = 60, viaIP: Bool = false) throws -> CommandResult {
        let process = viaIP ? try RunningCommand(binary: NetworkLab.ipTool, arguments: arguments) : try start(arguments)
        guard process.waitForExit(timeout: timeout) else {
            process.stop()
            throw XCTSkip("cluster \(arguments.joined(separator: " ")) did not finish in \(timeout) s")
        }
        return process.finish()
    }

    /// Starts `cluster` with `arguments`; `environment` is added to this process's. A worker
    /// gets `--allow-loopback` unless `allowLoopback` is false (see `loopbackAllowed`).
    static func start(_ arguments: [String], environment: [String: String] = [:], allowLoopback: Bool = true) throws -> RunningCommand {
        let binary = Repository.clusterBinary
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw XCTSkip("\(binary.path) is missing: `make test` builds it first (swift build --product cluster)")
        }
        return try RunningCommand(binary: binary, arguments: allowLoopback ? loopbackAllowed(arguments) : arguments, environment: environment)
    }

    /// `cluster worker` arguments with `--allow-loopback` added: the tests serve photos on
    /// 127.0.0.1, which a worker refuses by default. Other commands' arguments are unchanged.
    static func loopbackAllowed(_ arguments: [String]) -> [String] {
        guard arguments.first == "worker", !arguments.contains("--allow-loopback") else { return arguments }
        return arguments + ["--allow-loopback"]
    }
}

/// A `cluster` process (a `ChildProcess`); its output is collected into files so pipes can
/// never fill up.
final class RunningCommand {
    let process: ChildProcess
    let arguments: [String]
    private let logs: URL
    private let stdoutFile: URL
    private let stderrFile: URL

    init(binary: URL, arguments: [String], environment: [String: String] = [:]) throws {
        logs = Repository.temporaryDirectory("cmd")
        stdoutFile = logs.appendingPathComponent("stdout")
        stderrFile = logs.appendingPathComponent("stderr")
        self.arguments = arguments
        process = try ChildProcess(binary.path, arguments, output: stdoutFile, error: stderrFile, environment: environment)
    }

    /// The output files go with the command, whether it finished or was stopped.
    deinit { try? FileManager.default.removeItem(at: logs) }

    var stderrSoFar: String { (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "" }
    var stdoutSoFar: String { (try? String(contentsOf: stdoutFile, encoding: .utf8)) ?? "" }

    /// Whether the process ended within `timeout` seconds.
    func waitForExit(timeout: TimeInterval) -> Bool {
        process.waitForExit(timeout: timeout)
    }

    /// Asks the process to stop (SIGINT, as Ctrl-C), and kills it if it has not within 5 s.
    func stop() {
        process.send(signal: SIGINT)
        if !waitForExit(timeout: 5) { process.killAndReap() }
    }

    /// Waits for the process to end and collects its output. A process still running after
    /// `timeout` seconds is a hang: it is stopped, the test fails with its output, and its
    /// status reads as -1.
    func finish(timeout: TimeInterval = 120, file: StaticString = #filePath, line: UInt = #line) -> CommandResult {
        let ended = waitForExit(timeout: timeout)
        if !ended {
            stop()
            XCTFail("\(arguments.joined(separator: " ")) still ran after \(Int(timeout)) s: \(stderrSoFar.suffix(4000))", file: file, line: line)
        }
        let result = CommandResult(
            status: ended ? process.status ?? -1 : -1,
            stdout: (try? String(contentsOf: stdoutFile, encoding: .utf8)) ?? "",
            stderr: stderrSoFar)
        return result
    }
}
