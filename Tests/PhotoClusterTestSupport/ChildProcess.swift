import Foundation

/// A program the tests start: spawned with `posix_spawn`, its output sent to files, reaped by
/// its own pid.
///
/// Foundation's `Process` is not used in the tests. It watches each child from a run-loop
/// thread of its own through a socket the child inherits, so a daemon the program forks keeps
/// it waiting (tmux starts its server that way), and its monitoring has had races on Linux that
/// end in a crash inside libdispatch. Here the child gets no descriptor beyond standard input,
/// output and error, and nothing runs in the background: `isRunning` and the waits ask the
/// kernel with `waitpid`.
///
/// `@unchecked Sendable` invariant: `pid` is immutable; the exit status is guarded by `lock`.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments`. Standard input reads `input` (or /dev/null),
    /// standard output goes to `output`, and standard error to `error` (or to `output`). The
    /// child gets this process's environment with `environment` added (or replacing).
    public init(_ executable: String, _ arguments: [String], input: URL? = nil, output: URL, error: URL? = nil, environment: [String: String] = [:]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input?.path ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if let error {
            posix_spawn_file_actions_addopen(&actions, 2, error.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        Self.closeInheritedDescriptors(&actions)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, given in given }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(spawned), userInfo: [
                NSLocalizedDescriptionKey: "cannot start \(executable): \(String(cString: strerror(spawned)))",
            ])
        }
        self.pid = pid
    }

    /// The exit status (128 + the signal when one ended it), or nil while it runs.
    public var status: Int32? {
        lock.lock()
        defer { lock.unlock() }
        if exitStatus == nil { exitStatus = Self.reap(pid) }
        return exitStatus
    }

    public var isRunning: Bool { status == nil }

    /// Whether it ended within `timeout` seconds.
    @discardableResult
    public func waitForExit(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            if Date() >= deadline { return false }
            usleep(20_000)
        }
        return true
    }

    /// Sends `number` (SIGINT, SIGKILL…) unless it has ended.
    public func send(signal number: Int32) {
        if isRunning { kill(pid, number) }
    }

    /// Kills it unless it has ended, and reaps it.
    public func killAndReap() {
        send(signal: SIGKILL)
        waitForExit(timeout: .infinity)
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

    /// The status of `pid` if it has ended (128 + the signal when one ended it), else nil.
    private static func reap(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                let signal = status & 0x7f
                return signal == 0 ? (status >> 8) & 0xff : 128 + signal
            }
            if reaped < 0 && errno == EINTR { continue }
            return reaped < 0 ? -1 : nil
        }
    }
}
