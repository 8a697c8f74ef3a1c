import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests and benchmarks, never shipped in `cluster`
/// (whose photo server is Hummingbird's): one thread per connection, and responses whose faults a
/// test chooses (a delay before the headers, a body trickled out, any handler). With `keepAlive`
/// a connection serves request after request, as a web server does for a client that fetches
/// many photos; otherwise each response closes its connection.
///
/// `@unchecked Sendable` invariant: the stored properties are immutable; shared mutable state
/// lives in `ServerState` behind its lock.
public final class LoopbackHTTPServer: @unchecked Sendable {
    public let port: UInt16
    private let state: ServerState

    /// Binds 127.0.0.1 on an ephemeral port (or `port`), serves each connection on its own thread.
    /// `keepAlive`: connections stay open between requests (see `Connection`).
    public init(port: UInt16 = 0, keepAlive: Bool = false, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws {
        let (listener, boundPort) = try Socket.listenLoopback(port: port)
        self.port = boundPort
        let state = ServerState(listener: listener, keepAlive: keepAlive, handler: handler)
        self.state = state
        state.acceptLoopDone.enter()
        // The thread holds the state, not the server, so dropping the server stops it.
        Self.startThread(named: "loopback-accept") { Self.acceptLoop(state) }
    }

    deinit { stop() }

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// Requests received so far.
    public var requestCount: Int { state.requestCount }
    /// Connections accepted so far.
    public var connectionCount: Int { state.connectionCount }
    /// Requests received for exactly this target (query included).
    public func requests(forPath path: String) -> Int { state.requests(forPath: path) }
    /// Responses the client hung up on before the body was fully sent.
    public var abortedResponses: Int { state.abortedResponses }

    /// Closes the listener and live connections; idempotent.
    public func stop() { state.stop() }

    private static func acceptLoop(_ state: ServerState) {
        defer {
            close(state.listener)
            state.acceptLoopDone.leave()
        }
        while true {
            let fd = accept(state.listener, nil, nil)
            if fd < 0 {
                let code = errno
                if state.isStopped { return }
                if code == EINTR || code == ECONNABORTED { continue }
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                    usleep(10_000)   // out of descriptors: let connections finish, then retry
                    continue
                }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)   // keep it out of child processes
            guard state.adopt(fd) else { return }
            let connection = Connection(fd: fd, state: state)
            startThread(named: "loopback-conn") { connection.serve() }
        }
    }

    /// The thread names itself only once start() has returned: on Linux an earlier rename is
    /// lost. Pthread names are limited to 15 bytes.
    private static func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
        let started = DispatchSemaphore(value: 0)
        Thread {
            started.wait()
            Thread.current.name = name
            body()
        }.start()
        started.signal()
    }
}
