import CZeroMQ

/// A libzmq call that failed: which call, on what, and `zmq_strerror` of its errno.
public struct ZMQError: Error, Sendable, CustomStringConvertible {
    public let operation: String
    public let errno: Int32
    public let message: String

    public init(_ operation: String, errno: Int32 = zmq_errno()) {
        self.operation = operation
        self.errno = errno
        self.message = String(cString: zmq_strerror(errno))
    }

    public var description: String { "\(operation): \(message)" }

    /// The send would block (high-water mark) or the peer is unknown: the message was not sent.
    public var isWouldBlock: Bool { errno == EAGAIN }
    public var isHostUnreachable: Bool { errno == EHOSTUNREACH }
    /// The context was terminated under the socket.
    public var isTerminated: Bool { errno == ETERM }
}
