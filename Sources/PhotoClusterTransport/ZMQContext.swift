import CZeroMQ

/// A libzmq context. Sockets of one context can talk over `inproc://`.
///
/// Terminate it explicitly with `terminate()` after every socket is closed: termination
/// blocks while sockets are open, so it must never happen from `deinit`.
public final class ZMQContext: @unchecked Sendable {
    // zmq contexts are thread-safe; the pointer itself never changes.
    let handle: UnsafeMutableRawPointer

    /// `maxSockets` bounds the sockets of this context (libzmq's default is 1023).
    public init(ioThreads: Int32 = 1, maxSockets: Int32? = nil) throws {
        guard let handle = zmq_ctx_new() else { throw ZMQError("zmq_ctx_new") }
        self.handle = handle
        zmq_ctx_set(handle, ZMQ_IO_THREADS, ioThreads)
        if let maxSockets { zmq_ctx_set(handle, ZMQ_MAX_SOCKETS, maxSockets) }
    }

    /// Waits until every socket of the context is closed, then frees it.
    public func terminate() {
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }

    /// Whether this libzmq was built with CURVE security.
    public static var hasCurve: Bool { zmq_has("curve") == 1 }

    public static var version: String {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }
}
