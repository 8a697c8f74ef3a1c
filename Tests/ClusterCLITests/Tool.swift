import Foundation
import PhotoClusterTestSupport
import XCTest

/// Runs an outside program (tmux, promtool, the browser driver) to completion.
///
/// It is spawned with `posix_spawn` and reaped by its own pid rather than through Foundation's
/// `Process`: `Process` learns of an exit when a socket it hands the child closes, and a daemon
/// the program forks (tmux starts its server that way) inherits that socket and keeps it open
/// for as long as it lives, so `Process` would wait for the daemon instead of the program.
/// The child also gets no descriptor of this process beyond standard input, output and error.
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

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputFile.path, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        closeInheritedDescriptors(&actions)

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(spawned), userInfo: [NSLocalizedDescriptionKey: "cannot start \(path): \(String(cString: strerror(spawned)))"])
        }

        let status = wait(for: pid, timeout: timeout)
        if status == nil {
            kill(pid, SIGKILL)
            _ = wait(for: pid, timeout: 10)
            XCTFail("\(path) \(arguments.joined(separator: " ")) still ran after \(Int(timeout)) s", file: file, line: line)
        }
        let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        return (status ?? -1, output)
    }

    /// Closes every descriptor from 3 up in the child: glibc's `addclosefrom_np` where there is
    /// one (2.34 and later, looked up because Swift's Glibc module does not declare it), else each
    /// descriptor open now.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    /// The exit status of `pid` (128 + the signal when one ended it), or nil if it still runs
    /// after `timeout` seconds.
    private static func wait(for pid: pid_t, timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                let signal = status & 0x7f
                return signal == 0 ? (status >> 8) & 0xff : 128 + signal
            }
            if reaped < 0 && errno != EINTR { return -1 }
            if Date() >= deadline { return nil }
            usleep(20_000)
        }
    }
}
