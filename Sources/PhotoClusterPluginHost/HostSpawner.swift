import CPluginHost
import Foundation
import PhotoClusterCore

/// Starts plugin host processes from one thread that lives as long as the process.
///
/// A host asks the kernel for SIGKILL when its parent goes (`PR_SET_PDEATHSIG`), so it never
/// outlives a worker that crashed or was killed. The kernel means the parent *thread*: a host
/// started from an `OperationQueue` thread would be killed when libdispatch retires that thread.
/// Every host is therefore started here.
final class HostSpawner: @unchecked Sendable {
    static let shared = HostSpawner()

    /// Requests waiting for the thread; guarded by the box's lock. The thread is the only
    /// consumer, `wake` counts the requests.
    private let requests = LockedBox<[() -> Void]>([])
    private let wake = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [unowned self] in
            while true {
                wake.wait()
                let next = requests.withLock { $0.removeFirst() }
                next()
            }
        }
        thread.name = "plugin host spawner"
        thread.start()
    }

    /// Starts `executable` with `arguments` (argv[1...]) and this process's environment as
    /// `PluginHostEnvironment` scrubs it (no credentials); the child gets `childSocket` as its
    /// descriptor 3. Returns the pid.
    func spawn(_ executable: String, _ arguments: [String], childSocket: Int32) throws -> pid_t {
        let environment = PluginHostEnvironment.scrubbed(ProcessInfo.processInfo.environment)
        let variables = environment.map { "\($0.key)=\($0.value)" }
        let done = DispatchSemaphore(value: 0)
        let result = LockedBox<Result<pid_t, Error>?>(nil)
        requests.withLock {
            $0.append {
                let argv = ([executable] + arguments).map { strdup($0) } + [nil]
                let envp = variables.map { strdup($0) } + [nil]
                defer { (argv + envp).forEach { free($0) } }
                var pid: pid_t = 0
                let error = ph_spawn(executable, argv, envp, childSocket, &pid)
                result.withLock {
                    $0 = error == 0
                        ? .success(pid)
                        : .failure(PluginHostUnavailable(reason: "cannot start \(executable): \(String(cString: strerror(error)))"))
                }
                done.signal()
            }
        }
        wake.signal()
        done.wait()
        return try result.current!.get()
    }
}

/// The plugin host could not be started or could not load its plugins.
struct PluginHostUnavailable: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
