import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTransport

/// The client's socket, and following whichever of several coordinators leads: only the leader
/// binds its ports, so the client keeps one connection, to one endpoint, and moves to the next
/// when the current one refuses connections, drops the connection, or stays silent for
/// `silenceBeforeMoving` (a frozen coordinator keeps its port open). On the loop thread.
extension ClusterClient {
    /// Seconds without a word from the endpoint in use before the client tries the next, by
    /// default: three of its 1 s heartbeats unanswered, as a worker's default liveness.
    public static let defaultSilenceBeforeMoving: TimeInterval = 3

    /// A new DEALER (under a new random routing id) connected to the current endpoint, with its
    /// monitor, watched by the loop. From `init` or the loop thread.
    func openSocket() throws {
        let socket = try ZMQSocket(context: context, kind: .dealer)
        // Random, so no other connection can announce it and be sent this client's answers.
        try socket.setRoutingID(RoutingIdentity.client())
        try socket.setMaxMessageSize(256 << 20)
        try socket.setReconnectInterval(initialMs: 100, maxMs: 1000)
        var events: SocketMonitor.Events = []
        if let curve {
            try socket.makeCurveClient(serverPublicKey: curve.serverPublicKey, keys: curve.keys)
            events.formUnion(.handshakeFailed)
        }
        // With somewhere else to go, a refused or dropped connection is the sign to go there.
        if rotation.canMove { events.formUnion([.connected, .connectRetried, .disconnected]) }
        let monitor = events.isEmpty ? nil : try SocketMonitor(socket: socket, context: context, events: events)
        do {
            try socket.connect(rotation.current)
        } catch {
            monitor?.close()
            socket.close()
            throw error
        }
        rotation.tried(at: .now)
        endpointInUse.withLock { $0 = rotation.current }
        (self.socket, self.monitor, connectedSinceOpen) = (socket, monitor, false)
        loop.watch(socket) { [unowned self] socket in
            while socket === self.socket, let frames = try? socket.receive(dontWait: true) { receive(frames) }
        }
        // A refused key fails its requests as soon as the handshake fails, not at the next tick.
        if let monitor { loop.watch(monitor.eventSocket) { [unowned self] _ in connectionEvents() } }
    }

    /// Opens the socket to the endpoint moved to once the back-off allows; from `init`.
    func scheduleMoves() {
        guard rotation.canMove else { return }
        loop.every(0.1) { [unowned self] in
            if let at = openMovedSocketAt, MonotonicInstant.now >= at { openMovedSocket() }
        }
    }

    /// Closes the socket and its monitor; what waits in them is dropped (linger 0).
    func closeSocket() {
        if let monitor {
            loop.unwatch(monitor.eventSocket)
            monitor.close()
        }
        if let socket {
            loop.unwatch(socket)
            socket.close()
        }
        (socket, monitor) = (nil, nil)
    }

    /// The monitor's events: a refused key, and with several endpoints the connection's fate.
    func connectionEvents() {
        guard let monitor else { return }
        for event in monitor.poll() {
            if event.isHandshakeFailure { return refuseBecauseHandshakeFailed() }
            switch event {
            case .connected: connectedSinceOpen = true
            case .connectRetried where rotation.canMove: return moveToNextEndpoint()
            case .disconnected where rotation.canMove: return moveToNextEndpoint()
            default: continue
            }
        }
    }

    /// With several endpoints: moves on when the one in use said nothing for too long.
    func moveIfSilent(now: MonotonicInstant) {
        guard rotation.canMove, socket != nil, now.seconds(since: lastSignOfLife) > silenceBeforeMoving else { return }
        moveToNextEndpoint()
    }

    /// Leaves the endpoint in use for the next. Requests it owes answers to go along: all of them
    /// if the socket never connected (nothing left it), else all but submits (see
    /// `isResendable`). The jobs followed are watched at the next endpoint as soon as it opens.
    func moveToNextEndpoint() {
        let now = MonotonicInstant.now
        let nothingLeft = !connectedSinceOpen
        closeSocket()
        for (id, request) in waiting where unsent[id] == nil && (nothingLeft || request.resendable) {
            unsent[id] = request.payload
        }
        let (_, _, openAt) = rotation.move(at: now)
        lastSignOfLife = now
        openMovedSocketAt = openAt
        if openAt <= now { openMovedSocket() }
    }

    /// Opens the socket to the endpoint moved to and sends what waits: requests, then watches.
    func openMovedSocket() {
        openMovedSocketAt = nil
        do {
            try openSocket()
        } catch {
            // A malformed endpoint: the next one may do; this one is tried again in its turn.
            rotation.tried(at: .now)
            return moveToNextEndpoint()
        }
        lastSignOfLife = .now
        for (id, payload) in unsent where waiting[id] != nil { send(id, payload) }
        rewatchFollowedJobs()
    }

    /// A coordinator answered.
    func heardFromCoordinator() {
        lastSignOfLife = .now
        connectedSinceOpen = true
        if rotation.canMove { rotation.answered() }
    }

    /// How errors name where the client looked: one endpoint, or all of them.
    var coordinatorsNamed: String {
        endpoints.count == 1 ? "the coordinator at \(endpoints[0])" : "any coordinator at \(endpoints.joined(separator: ", "))"
    }
}
