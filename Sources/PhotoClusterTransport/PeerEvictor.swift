#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Drops one peer's connection from a ROUTER, which libzmq 4.3 has no call for.
///
/// The ROUTER says which connection each message came by (`ZMQSocket.Received.descriptor`);
/// `note` remembers it, with both ends of the connection, for the message's routing id. To
/// evict a peer, its connection's TCP socket is shut down (`shutdown(2)`, never closed: libzmq
/// owns the descriptor). libzmq then reads the end of the stream and tears the connection down
/// as if the peer had left: the routing id is freed, and the peer's reconnection goes through
/// the ZAP handler again, which refuses a key that has been removed.
///
/// Not `ZMQ_ROUTER_HANDOVER` to a throwaway connection, as before: a connection detached that
/// way stays open, and libzmq 4.3.4 aborts (`!_io_error` in stream_engine_base.cpp) when such a
/// connection, or one whose inbound pipe is full, is closed by its peer while ZMTP heartbeats
/// run (see `ZMQSocket.makeStrictRouter`).
///
/// A descriptor is shut down only while it is still the connection noted: libzmq may have closed
/// it and the kernel given its number to another connection meanwhile, whose ends differ.
///
/// Like `ZMQSocket`, it belongs to the thread that owns the ROUTER.
public final class PeerEvictor {
    private var connections: [Data: (descriptor: Int32, ends: [UInt8])] = [:]

    public init() {}

    /// The connections noted and not yet forgotten.
    public var count: Int { connections.count }

    /// A message with routing id `routingID` came by the connection whose socket is `descriptor`.
    public func note(_ routingID: Data, descriptor: Int32?) {
        guard let descriptor, descriptor >= 0, connections[routingID]?.descriptor != descriptor else { return }
        guard let ends = TCPConnection.ends(of: descriptor) else { return }
        connections[routingID] = (descriptor, ends)
    }

    /// Shuts down the connection whose routing id is `routingID`; false when none is known, or
    /// it has closed since.
    @discardableResult
    public func evict(_ routingID: Data) -> Bool {
        guard let connection = connections.removeValue(forKey: routingID),
            TCPConnection.ends(of: connection.descriptor) == connection.ends
        else { return false }
        return shutdown(connection.descriptor, Int32(SHUT_RDWR)) == 0
    }

    /// Forgets the connections that have closed (call it now and then).
    public func forgetClosed() {
        connections = connections.filter { TCPConnection.ends(of: $0.value.descriptor) == $0.value.ends }
    }
}
