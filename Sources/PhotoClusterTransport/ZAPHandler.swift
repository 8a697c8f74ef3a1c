import Foundation
import PhotoClusterCore

/// Answers libzmq's authentication requests (ZAP, RFC 27) for one context: a CURVE client whose
/// public key is in `authorizedKeys` is accepted (user id: its Z85 key), every other request refused.
/// On the coordinator's sockets (`ServerEndpoint` ZAP domains) the key's role must belong there
/// too: worker keys on the worker endpoint, client and admin keys on the client endpoint.
///
/// libzmq asks whatever is bound to `inproc://zeromq.zap.01` in the socket's own context, so there
/// is at most one handler per context (a second `start()` fails with EADDRINUSE). Start it before
/// binding a CURVE server: with no handler bound, libzmq accepts any client knowing the server key.
/// Requests for other mechanisms (NULL, PLAIN with a ZAP domain set) are refused.
public final class ZAPHandler: @unchecked Sendable {
    // The REP socket is created and bound in `start()` before its loop thread starts (thread start is
    // a full barrier), and from then on only that thread touches it. Everything else is behind locks.

    /// One handshake's outcome, reported on the handler's thread.
    public struct Decision: Sendable, Equatable {
        /// The client's Z85 key ("" if it had none).
        public let key: String
        public let address: String
        /// The coordinator endpoint the handshake was for, when its domain is one of theirs.
        public let endpoint: ServerEndpoint?
        /// Why it was refused; nil when it was accepted.
        public let refusal: String?

        public var accepted: Bool { refusal == nil }
    }

    public typealias DecisionObserver = @Sendable (Decision) -> Void

    public static let endpoint = "inproc://zeromq.zap.01"

    private let context: ZMQContext
    private let domain: String?
    private let onDecision: DecisionObserver?
    private let authorized: LockedBox<AuthorizedKeys>
    private let counts = LockedBox((accepted: 0, refused: 0))
    private let loop = LockedBox<EventLoopThread?>(nil)

    /// `domain`, when given, refuses requests from sockets whose `ZMQ_ZAP_DOMAIN` differs. Roles
    /// are checked for requests whose domain is a `ServerEndpoint`'s.
    public init(
        context: ZMQContext,
        authorizedKeys: AuthorizedKeys,
        domain: String? = nil,
        onDecision: DecisionObserver? = nil
    ) {
        self.context = context
        self.authorized = LockedBox(authorizedKeys)
        self.domain = domain
        self.onDecision = onDecision
    }

    /// The keys in force; replacing them affects later handshakes only (connected peers stay).
    public var authorizedKeys: AuthorizedKeys {
        get { authorized.current }
        set { authorized.withLock { $0 = newValue } }
    }

    public var acceptedCount: Int { counts.current.accepted }
    public var refusedCount: Int { counts.current.refused }

    /// Binds the handler, then answers on its own thread. Returns once bound; throws if the bind fails
    /// (EADDRINUSE: the context already has a handler). Starting a running handler again is a programming error.
    public func start() throws {
        try loop.withLock { current in
            precondition(current == nil, "ZAPHandler started twice")
            let socket = try ZMQSocket(context: context, kind: .rep)
            do {
                try socket.bind(Self.endpoint)
            } catch {
                socket.close()
                throw error
            }
            let thread = EventLoopThread(name: "zap-handler")
            thread.watch(socket) { [self] socket in answerPending(on: socket) }
            thread.start(cleanup: { socket.close() })
            current = thread
        }
    }

    /// Stops answering and closes the socket (linger 0); waits until done. Call before terminating the
    /// context. libzmq releases the endpoint a moment later, so a new handler's `start()` right after
    /// may still fail with EADDRINUSE.
    public func stop() {
        let thread = loop.withLock { current -> EventLoopThread? in
            defer { current = nil }
            return current
        }
        thread?.stop()
    }

    private func answerPending(on socket: ZMQSocket) {
        while let frames = try? socket.receive() {
            // A REP socket must answer before it can receive again, so even a malformed request gets one.
            guard (try? socket.send(answer(frames))) != nil else { return }
        }
    }

    private func answer(_ frames: [Data]) -> [Data] {
        guard let request = ZAPRequest(frames: frames) else {
            let requestID = frames.count > 1 ? frames[1] : Data()
            return ZAPRequest.reply(requestID: requestID, status: "500", text: "malformed ZAP request", userID: "")
        }
        let key = request.curvePublicKey
        let refusal = refusalReason(for: request, key: key)
        counts.withLock { refusal == nil ? ($0.accepted += 1) : ($0.refused += 1) }
        onDecision?(Decision(key: key ?? "", address: request.address, endpoint: ServerEndpoint(zapDomain: request.domain), refusal: refusal))
        if let refusal { return request.reply(status: "400", text: refusal, userID: "") }
        return request.reply(status: "200", text: "OK", userID: key ?? "")
    }

    /// Why `request` is refused, or nil to accept it.
    private func refusalReason(for request: ZAPRequest, key: String?) -> String? {
        if let domain, request.domain != domain { return "domain '\(request.domain)' is not served" }
        guard let key else { return "mechanism \(request.mechanism) is not allowed" }
        let keys = authorized.current
        if let endpoint = ServerEndpoint(zapDomain: request.domain) { return keys.refusal(of: key, at: endpoint) }
        return keys.contains(key) ? nil : "key \(key) is not in the authorized keys"
    }
}
