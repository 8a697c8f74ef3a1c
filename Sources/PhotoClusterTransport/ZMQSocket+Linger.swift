import CZeroMQ

extension ZMQSocket {
    /// How long `close()` may keep unsent messages going before they are dropped. Sockets start
    /// at 0 so nothing can hang shutdown; a node raises it just before a graceful close.
    public func setLinger(milliseconds: Int32) throws {
        try setOption(ZMQ_LINGER, milliseconds)
    }
}
