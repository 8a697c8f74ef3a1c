import CZeroMQ
import Foundation

extension SocketMonitor {
    /// Which events to report (`zmq_socket_monitor`'s mask).
    public struct Events: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let connected = Events(rawValue: ZMQ_EVENT_CONNECTED)
        public static let connectRetried = Events(rawValue: ZMQ_EVENT_CONNECT_RETRIED)
        public static let disconnected = Events(rawValue: ZMQ_EVENT_DISCONNECTED)
        public static let handshakeSucceeded = Events(rawValue: ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
        public static let handshakeFailed = Events(
            rawValue: ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
                | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL
        )
        public static let all = Events(rawValue: ZMQ_EVENT_ALL)
    }

    /// One event. Events are hints: a send right after `.disconnected` can still succeed.
    public enum Event: Sendable, Equatable {
        /// `descriptor`: the connection's socket (see `TCPConnection.isConnectedToItself`).
        case connected(endpoint: String, descriptor: Int32)
        case connectRetried(endpoint: String)
        case disconnected(endpoint: String)
        case handshakeSucceeded(endpoint: String)
        /// The server's ZAP handler refused the handshake (`statusCode` 300, 400 or 500). A refused
        /// client never retries that connection by itself.
        case handshakeFailedAuth(endpoint: String, statusCode: Int)
        /// A ZMTP or ZAP protocol error (`code` is one of libzmq's `ZMQ_PROTOCOL_ERROR_*`).
        case handshakeFailedProtocol(endpoint: String, code: Int)
        case handshakeFailedNoDetail(endpoint: String, errno: Int)
        case monitorStopped
        /// Any other libzmq event (`ZMQ_EVENT_*`), with its value.
        case other(event: Int, value: Int, endpoint: String)

        public var isHandshakeFailure: Bool {
            switch self {
            case .handshakeFailedAuth, .handshakeFailedProtocol, .handshakeFailedNoDetail: return true
            default: return false
            }
        }

        /// Decodes libzmq's two frames: 16-bit event and 32-bit value in host order, then the endpoint.
        init?(frames: [Data]) {
            guard frames.count == 2, frames[0].count == 6 else { return nil }
            let (code, value) = frames[0].withUnsafeBytes { raw in
                (Int32(raw.loadUnaligned(as: UInt16.self)), Int(raw.loadUnaligned(fromByteOffset: 2, as: UInt32.self)))
            }
            let endpoint = String(decoding: frames[1], as: UTF8.self)
            switch code {
            case ZMQ_EVENT_CONNECTED: self = .connected(endpoint: endpoint, descriptor: Int32(truncatingIfNeeded: value))
            case ZMQ_EVENT_CONNECT_RETRIED: self = .connectRetried(endpoint: endpoint)
            case ZMQ_EVENT_DISCONNECTED: self = .disconnected(endpoint: endpoint)
            case ZMQ_EVENT_HANDSHAKE_SUCCEEDED: self = .handshakeSucceeded(endpoint: endpoint)
            case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH: self = .handshakeFailedAuth(endpoint: endpoint, statusCode: value)
            case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL: self = .handshakeFailedProtocol(endpoint: endpoint, code: value)
            case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL: self = .handshakeFailedNoDetail(endpoint: endpoint, errno: value)
            case ZMQ_EVENT_MONITOR_STOPPED: self = .monitorStopped
            default: self = .other(event: Int(code), value: value, endpoint: endpoint)
            }
        }
    }
}
