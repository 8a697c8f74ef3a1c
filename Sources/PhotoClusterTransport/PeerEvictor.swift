import CZeroMQ
import Foundation

/// Drops one peer's connection from a ROUTER, which libzmq 4.3 has no call for.
///
/// The ROUTER also listens on a private inproc endpoint. To evict a peer, a throwaway DEALER
/// connects there announcing the peer's routing id: with `ZMQ_ROUTER_HANDOVER` the ROUTER hands
/// the id to the newcomer and detaches the peer's connection, which then delivers nothing more.
/// The detached connection reads nothing either, so the ROUTER's ZMTP heartbeat
/// (`ZMQ_HEARTBEAT_TIMEOUT`) closes it: within about interval + timeout on loopback, measured
/// with libzmq 4.3.4. The peer's reconnection then goes through the ZAP handler again, which
/// refuses a key that has been removed. Inproc connections skip CURVE, so the throwaway socket
/// needs no key; it is closed a second later, which frees the id.
///
/// Like `ZMQSocket`, it belongs to the thread that owns the ROUTER.
public final class PeerEvictor {
    private let context: ZMQContext
    private let endpoint = "inproc://photocluster.evict.\(UUID().uuidString)"
    private var throwaways: [(socket: ZMQSocket, closeAt: Date)] = []

    /// Binds `router` (a ROUTER made with `makeStrictRouter`, with ZMTP heartbeats) to the
    /// private endpoint as well.
    public init(router: ZMQSocket, context: ZMQContext) throws {
        self.context = context
        try router.bind(endpoint)
    }

    /// Detaches the connection whose routing id is `routingID`.
    public func evict(_ routingID: Data) throws {
        let socket = try ZMQSocket(context: context, kind: .dealer)
        do {
            try socket.setOption(ZMQ_ROUTING_ID, [UInt8](routingID))
            try socket.connect(endpoint)
        } catch {
            socket.close()
            throw error
        }
        throwaways.append((socket, Date().addingTimeInterval(1)))
    }

    /// Closes the throwaway sockets whose second has passed; call it now and then.
    public func closeFinished(now: Date = Date()) {
        throwaways.removeAll { entry in
            guard entry.closeAt <= now else { return false }
            entry.socket.close()
            return true
        }
    }

    /// Closes every throwaway socket (before the context terminates).
    public func close() {
        closeFinished(now: .distantFuture)
    }
}
