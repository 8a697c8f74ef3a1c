import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the server's threads share: the listener, live connections and counters.
///
/// `@unchecked Sendable` invariant: `listener`, `keepAlive`, `handler` and `acceptLoopDone` are
/// set once in init; every other field is guarded by `lock`. A connection's fd is closed only by
/// its own thread after leaving `live`, so `stop()` never shuts down a recycled fd.
final class ServerState: @unchecked Sendable {
    let listener: Int32
    let keepAlive: Bool
    let handler: @Sendable (HTTPRequest) -> HTTPResponse
    let acceptLoopDone = DispatchGroup()

    private let lock = NSLock()
    private var stopped = false
    private var live: Set<Int32> = []
    private var requestsByPath: [String: Int] = [:]
    private var totalRequests = 0
    private var totalConnections = 0
    private var aborted = 0

    init(listener: Int32, keepAlive: Bool, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.listener = listener
        self.keepAlive = keepAlive
        self.handler = handler
    }

    var isStopped: Bool { locked { stopped } }
    var requestCount: Int { locked { totalRequests } }
    var connectionCount: Int { locked { totalConnections } }
    var abortedResponses: Int { locked { aborted } }
    func requests(forPath path: String) -> Int { locked { requestsByPath[path, default: 0] } }

    func recordRequest(_ path: String) {
        locked {
            totalRequests += 1
            requestsByPath[path, default: 0] += 1
        }
    }

    func recordAborted() { locked { aborted += 1 } }

    /// Registers an accepted connection; false (and the fd closed) once stopped.
    func adopt(_ fd: Int32) -> Bool {
        let adopted = locked { () -> Bool in
            if stopped { return false }
            live.insert(fd)
            totalConnections += 1
            return true
        }
        if !adopted { close(fd) }
        return adopted
    }

    func release(_ fd: Int32) {
        locked { _ = live.remove(fd) }
        close(fd)
    }

    /// Marks the server stopped and interrupts the listener and every live connection.
    func stop() {
        locked {
            guard !stopped else { return }
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))   // wakes the blocked accept()
            for fd in live { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        acceptLoopDone.wait()
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
