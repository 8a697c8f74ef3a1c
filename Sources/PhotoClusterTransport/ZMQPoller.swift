import CZeroMQ

/// Waits on several sockets and plain file descriptors at once (`zmq_poll`).
public struct ZMQPoller {
    public enum Item {
        case socket(ZMQSocket)
        case fileDescriptor(Int32)
    }

    private var items: [zmq_pollitem_t]

    public init(_ sources: [Item]) {
        items = sources.map { source in
            switch source {
            case .socket(let socket):
                return zmq_pollitem_t(socket: socket.handle, fd: -1, events: Int16(ZMQ_POLLIN), revents: 0)
            case .fileDescriptor(let fd):
                return zmq_pollitem_t(socket: nil, fd: fd, events: Int16(ZMQ_POLLIN), revents: 0)
            }
        }
    }

    /// Blocks up to `timeoutMs` (-1: forever). Returns which items are readable, by index.
    public mutating func poll(timeoutMs: Int) throws -> [Bool] {
        let count = Int32(items.count)
        while true {
            let result = items.withUnsafeMutableBufferPointer { zmq_poll($0.baseAddress, count, timeoutMs) }
            if result >= 0 { break }
            let error = zmq_errno()
            if error == EINTR { continue }
            throw ZMQError("zmq_poll", errno: error)
        }
        return items.map { $0.revents & Int16(ZMQ_POLLIN) != 0 }
    }
}
