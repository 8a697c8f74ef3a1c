import Foundation
import PhotoClusterCore
import PhotoClusterTransport

/// What a worker does when its connection to the coordinator reached the worker itself.
///
/// A coordinator endpoint on this host whose port lies in the kernel's ephemeral range, with
/// nothing listening there (the coordinator stopped), can be connected to from that very port:
/// the socket then talks to itself, and the worker would read its own hello, heartbeats and
/// reports as a welcome, assignments and control (measured: a core spent failing photos with
/// empty URLs, thousands of log lines a second). Each new connection is checked as it
/// is made, before its first message is read; the socket of one that reached the worker itself
/// is closed unread, and the worker connects again a moment later with a new one. Owned by the
/// worker's loop thread.
struct SelfConnectionGuard {
    /// When to connect again after dropping such a connection.
    private(set) var reconnectAt: MonotonicInstant?
    private var dropped = 0
    private var delay: TimeInterval = 0.1

    enum Verdict: Equatable {
        case fine
        /// Drop it; `warning`: what to log (the first time, then now and then, since the
        /// kernel may give the same port again and again).
        case itself(warning: String?)
    }

    /// A new connection, checked.
    mutating func connected(descriptor: Int32, endpoint: String) -> Verdict {
        guard TCPConnection.isConnectedToItself(descriptor) else {
            delay = 0.1
            return .fine
        }
        dropped += 1
        reconnectAt = MonotonicInstant.now.adding(seconds: delay)
        delay = min(delay * 2, 2)
        guard dropped == 1 || dropped % 100 == 0 else { return .itself(warning: nil) }
        return .itself(warning: "the connection to \(endpoint) reached this worker itself (\(dropped) time(s) so far): its port is in this host's "
            + "ephemeral range (net.ipv4.ip_local_port_range) and nothing listens there; dropped, connecting again. "
            + "Start the coordinator, and give it a port below that range (the default 7000 is)")
    }

    /// Whether it is time to connect again (once per dropped connection).
    mutating func shouldReconnect(now: MonotonicInstant = .now) -> Bool {
        guard let at = reconnectAt, now >= at else { return false }
        reconnectAt = nil
        return true
    }
}
