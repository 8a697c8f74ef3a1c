import CZeroMQ
import Foundation

/// A libzmq socket. Not thread-safe: exactly one thread owns it (creates, uses and closes it).
public final class ZMQSocket {
    public enum Kind {
        case router, dealer, pair, rep

        var raw: Int32 {
            switch self {
            case .router: return ZMQ_ROUTER
            case .dealer: return ZMQ_DEALER
            case .pair: return ZMQ_PAIR
            case .rep: return ZMQ_REP
            }
        }
    }

    let handle: UnsafeMutableRawPointer
    public let kind: Kind
    private(set) var closed = false

    public init(context: ZMQContext, kind: Kind) throws {
        guard let handle = zmq_socket(context.handle, kind.raw) else { throw ZMQError("zmq_socket") }
        self.handle = handle
        self.kind = kind
        // Never let a pending message keep the process from exiting.
        try setOption(ZMQ_LINGER, Int32(0))
    }

    deinit {
        close()
    }

    // MARK: - Options

    public func setOption(_ option: Int32, _ value: Int32) throws {
        var value = value
        try check(zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size), "zmq_setsockopt(\(option))")
    }

    public func setOption(_ option: Int32, _ value: Int64) throws {
        var value = value
        try check(zmq_setsockopt(handle, option, &value, MemoryLayout<Int64>.size), "zmq_setsockopt(\(option))")
    }

    public func setOption(_ option: Int32, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            try check(zmq_setsockopt(handle, option, raw.baseAddress, raw.count), "zmq_setsockopt(\(option))")
        }
    }

    public func setOption(_ option: Int32, _ string: String) throws {
        try setOption(option, Array(string.utf8))
    }

    /// The identity this socket announces to a ROUTER.
    public func setRoutingID(_ id: String) throws { try setOption(ZMQ_ROUTING_ID, id) }

    /// The identity this socket announces to a ROUTER, as bytes (see `RoutingIdentity`).
    public func setRoutingID(_ id: Data) throws { try setOption(ZMQ_ROUTING_ID, [UInt8](id)) }

    /// ZMTP heartbeats, so a dead TCP connection is torn down (application heartbeats are separate).
    public func setHeartbeat(intervalMs: Int32, timeoutMs: Int32, ttlMs: Int32) throws {
        try setOption(ZMQ_HEARTBEAT_IVL, intervalMs)
        try setOption(ZMQ_HEARTBEAT_TIMEOUT, timeoutMs)
        try setOption(ZMQ_HEARTBEAT_TTL, ttlMs)
    }

    /// ROUTER only: report unroutable sends as EHOSTUNREACH instead of dropping them silently.
    ///
    /// Without `handover`, a routing id stays with the connection that holds it: a second
    /// connection announcing an id in use is never routed to, so no peer can take another's
    /// connection. Peers then announce ids new for each connection (`RoutingIdentity`), so a
    /// reconnecting peer never meets its own old connection. With `handover`, the last
    /// connection to announce an id takes it, which only a ROUTER open to anyone (no CURVE)
    /// may allow.
    ///
    /// Handover detaches the old connection without closing it; with libzmq 4.3.4, a detached
    /// connection that its peer kept writing to and then closed aborted the process
    /// (`!_io_error` in stream_engine_base.cpp) at its next ZMTP heartbeat. Such ROUTERs take no
    /// ZMTP heartbeats (see `setKeepalive`).
    public func makeStrictRouter(handover: Bool) throws {
        try setOption(ZMQ_ROUTER_MANDATORY, Int32(1))
        try setOption(ZMQ_ROUTER_HANDOVER, Int32(handover ? 1 : 0))
    }

    /// TCP keepalive probes, so the kernel tears down a connection whose peer's host is gone:
    /// the first after `idleSeconds` of silence, then every `intervalSeconds`, `count` in all;
    /// and one whose sent data stays unacknowledged for `unacknowledgedSeconds`
    /// (`ZMQ_TCP_MAXRT`: keepalive probes only go out on a connection with nothing in flight).
    ///
    /// For sockets that face untrusted peers, instead of ZMTP heartbeats: with libzmq 4.3.4 a
    /// connection whose inbound pipe was full when its peer closed it aborts the process
    /// (`!_io_error` in stream_engine_base.cpp) at its next ZMTP heartbeat, so any peer able to
    /// send faster than the socket is read could stop it.
    public func setKeepalive(idleSeconds: Int32, intervalSeconds: Int32, count: Int32, unacknowledgedSeconds: Int32) throws {
        try setOption(ZMQ_TCP_KEEPALIVE, Int32(1))
        try setOption(ZMQ_TCP_KEEPALIVE_IDLE, idleSeconds)
        try setOption(ZMQ_TCP_KEEPALIVE_INTVL, intervalSeconds)
        try setOption(ZMQ_TCP_KEEPALIVE_CNT, count)
        try setOption(ZMQ_TCP_MAXRT, unacknowledgedSeconds * 1000)
    }

    public func setMaxMessageSize(_ bytes: Int64) throws { try setOption(ZMQ_MAXMSGSIZE, bytes) }

    /// How soon a disconnected socket retries, backing off from `initialMs` to `maxMs`.
    public func setReconnectInterval(initialMs: Int32, maxMs: Int32) throws {
        try setOption(ZMQ_RECONNECT_IVL, initialMs)
        try setOption(ZMQ_RECONNECT_IVL_MAX, maxMs)
    }

    /// Whether a message waits to be received (`ZMQ_EVENTS` has `ZMQ_POLLIN`).
    public var hasMessageWaiting: Bool {
        var events: Int32 = 0
        var size = MemoryLayout<Int32>.size
        guard zmq_getsockopt(handle, ZMQ_EVENTS, &events, &size) == 0 else { return false }
        return events & Int32(ZMQ_POLLIN) != 0
    }

    // MARK: - Endpoints

    public func bind(_ endpoint: String) throws {
        try check(zmq_bind(handle, endpoint), "bind \(endpoint)")
    }

    public func connect(_ endpoint: String) throws {
        try check(zmq_connect(handle, endpoint), "connect \(endpoint)")
    }

    /// The endpoint actually bound (resolves `tcp://127.0.0.1:*` to the chosen port).
    public var lastEndpoint: String? {
        var buffer = [CChar](repeating: 0, count: 256)
        var size = buffer.count
        guard zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size) == 0 else { return nil }
        return String(cString: buffer)
    }

    // MARK: - Messages

    /// Sends a multipart message. With `dontWait`, throws an error whose `isWouldBlock` is true
    /// instead of blocking when the peer is not reading. Large frames are lent, not copied
    /// (see `ZMQFrame`): their `Data` is kept, unchanged, until libzmq has sent them.
    public func send(_ frames: [Data], dontWait: Bool = true) throws {
        for (index, frame) in frames.enumerated() {
            var flags: Int32 = dontWait ? ZMQ_DONTWAIT : 0
            if index < frames.count - 1 { flags |= ZMQ_SNDMORE }
            guard ZMQFrame.send(frame, on: handle, flags: flags) else { throw ZMQError("send", errno: zmq_errno()) }
        }
    }

    /// Receives one whole multipart message, or nil when none is waiting (with `dontWait`).
    /// Large frames come back as `Data` over libzmq's own buffer (see `ZMQFrame`).
    public func receive(dontWait: Bool = true) throws -> [Data]? {
        var unused: String?
        return try receive(dontWait: dontWait, userID: &unused, wantsUserID: false)
    }

    /// A message as `receiveWithUserID` gives it.
    public struct Received {
        public let frames: [Data]
        /// For a CURVE peer, its public key in Z85 (see `ZAPHandler`); nil without ZAP.
        public let userID: String?
        /// The TCP socket of the connection it came by (see `PeerEvictor`); nil for inproc.
        public let descriptor: Int32?
    }

    /// Like `receive`, with the user id the ZAP handler gave the connection the message came
    /// by, and that connection's socket.
    public func receiveWithUserID(dontWait: Bool = true) throws -> Received? {
        var userID: String?
        var descriptor: Int32?
        guard let frames = try receive(dontWait: dontWait, userID: &userID, descriptor: &descriptor, wantsUserID: true) else { return nil }
        return Received(frames: frames, userID: userID, descriptor: descriptor)
    }

    private func receive(dontWait: Bool, userID: inout String?, wantsUserID: Bool) throws -> [Data]? {
        var descriptor: Int32?
        return try receive(dontWait: dontWait, userID: &userID, descriptor: &descriptor, wantsUserID: wantsUserID)
    }

    private func receive(dontWait: Bool, userID: inout String?, descriptor: inout Int32?, wantsUserID: Bool) throws -> [Data]? {
        var frames: [Data] = []
        // zmq_msg_t must not be copied: keep it behind a pointer for its whole life.
        let message = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        defer { message.deallocate() }
        while true {
            zmq_msg_init(message)
            defer { zmq_msg_close(message) }
            let flags: Int32 = (dontWait && frames.isEmpty) ? ZMQ_DONTWAIT : 0
            var received: Int32
            repeat {
                received = zmq_msg_recv(message, handle, flags)
            } while received < 0 && zmq_errno() == EINTR
            if received < 0 {
                let error = zmq_errno()
                if error == EAGAIN && frames.isEmpty { return nil }
                throw ZMQError("receive", errno: error)
            }
            // Every frame of a message carries its connection's properties; read them before
            // `take` may move the frame's buffer out.
            if wantsUserID && userID == nil, let property = zmq_msg_gets(message, "User-Id"), property.pointee != 0 {
                userID = String(cString: property)
            }
            if wantsUserID && descriptor == nil {
                let value = zmq_msg_get(message, ZMQ_SRCFD)
                if value >= 0 { descriptor = value }
            }
            let more = zmq_msg_more(message) != 0
            frames.append(ZMQFrame.take(message))
            if !more { return frames }
        }
    }

    /// Closes the socket; safe to call twice.
    public func close() {
        guard !closed else { return }
        closed = true
        zmq_close(handle)
    }

    private func check(_ result: Int32, _ operation: @autoclosure () -> String) throws {
        if result != 0 { throw ZMQError(operation()) }
    }
}
