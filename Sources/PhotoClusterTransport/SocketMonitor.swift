import CZeroMQ
import Foundation

/// Reports a socket's connection and handshake events (`zmq_socket_monitor`) through an inproc PAIR.
///
/// Like `ZMQSocket`, it belongs to one thread: the one that owns the monitored socket, since
/// creating and closing the monitor touch that socket. That thread calls `poll()` from its loop,
/// or watches `eventSocket` in its poller. Poll regularly: libzmq blocks on a full event queue.
/// Call `close()` before or after closing the monitored socket, never let it just go away while
/// the socket lives: a socket whose monitor's reader is gone blocks on its next event.
public final class SocketMonitor {
    /// The PAIR the events arrive on; readable when events are waiting.
    public let eventSocket: ZMQSocket
    private let monitored: ZMQSocket
    private var closed = false

    /// Starts monitoring `socket`, which must belong to `context` (the events travel over inproc).
    public init(socket: ZMQSocket, context: ZMQContext, events: Events = .all) throws {
        let endpoint = "inproc://photocluster.monitor.\(UUID().uuidString)"
        guard zmq_socket_monitor(socket.handle, endpoint, events.rawValue) == 0 else {
            throw ZMQError("zmq_socket_monitor")
        }
        let pair: ZMQSocket
        do {
            pair = try ZMQSocket(context: context, kind: .pair)
            try pair.connect(endpoint)
        } catch {
            zmq_socket_monitor(socket.handle, nil, 0)
            throw error
        }
        eventSocket = pair
        monitored = socket
    }

    /// The events waiting, waiting up to `timeoutMs` for the first one (0: never waits).
    public func poll(timeoutMs: Int = 0) -> [Event] {
        guard !closed else { return [] }
        if timeoutMs > 0 {
            var poller = ZMQPoller([.socket(eventSocket)])
            _ = try? poller.poll(timeoutMs: timeoutMs)
        }
        var events: [Event] = []
        while let frames = try? eventSocket.receive() {
            if let event = Event(frames: frames) { events.append(event) }
        }
        return events
    }

    /// Stops monitoring (if the socket is still open) and closes the PAIR; safe to call twice.
    public func close() {
        guard !closed else { return }
        closed = true
        if !monitored.closed {
            // Drain first: stopping sends one last event, which must not find the queue full.
            while (try? eventSocket.receive()) != nil {}
            zmq_socket_monitor(monitored.handle, nil, 0)
        }
        eventSocket.close()
    }
}
