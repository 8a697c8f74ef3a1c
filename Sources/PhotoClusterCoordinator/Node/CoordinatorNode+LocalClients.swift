import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterProtocol

/// Who a request from within the process speaks for.
public enum LocalRequester: Sendable, Equatable {
    /// A principal that acts as a client CURVE key does: an API token's `token:NAME`, whose
    /// role the authorized keys give (nil: the coordinator runs without CURVE, and every
    /// client may do everything).
    case key(String?)
    /// The operator (the dashboard's own token): every job, as an admin key.
    case `operator`
}

/// One photo looked up for a client inside the process: its status, or why not.
public enum PhotoLookup: Sendable {
    case found(Photocluster_V1_PhotoStatus)
    case refused(Photocluster_V1_ErrorReply)
}

/// A client inside the coordinator's process: what the coordinator sends it goes to `deliver`
/// (on the loop thread, in order, only once the journal holds what it tells) instead of a socket.
/// Loop-owned.
final class LocalClient {
    let deliver: (Data) -> Void
    /// Called once the coordinator forgets it, with why: its stream ends, or its request is
    /// answered with a refusal saying so if it was not yet.
    let end: (_ reason: String) -> Void
    /// Whose it is, so a revoked token's event streams end (see `dropRevokedLocalClients`).
    let requester: LocalRequester
    /// A watch (an event stream) rather than one request.
    let watches: Bool

    init(requester: LocalRequester, watches: Bool, deliver: @escaping (Data) -> Void, end: @escaping (_ reason: String) -> Void) {
        self.requester = requester
        self.watches = watches
        self.deliver = deliver
        self.end = end
    }
}

/// Requests from within the process, by the rules of requests from client connections: the
/// HTTP API speaks the client protocol to the loop, so a token does exactly what a key of its
/// role does (ownership, output directories, S3 grants, limits), by the same code.
extension CoordinatorNode {
    /// Sends `body` as a request from `requester` and answers with the coordinator's reply (an
    /// error, an acknowledgement, the job accepted, a status). `bytes`: the request's size as the
    /// limits count it (a submit's manifest).
    public func request(_ body: Photocluster_V1_ClientToCoordinator.OneOf_Body, from requester: LocalRequester,
                        bytes: Int = 0) async -> Photocluster_V1_CoordinatorToClient {
        let identity = Self.localIdentity()
        return await withCheckedContinuation { continuation in
            loop.post { [self] in
                var answered = false
                localClients[identity] = LocalClient(requester: requester, watches: false, deliver: { [weak self] encoded in
                    guard !answered, let message = Envelope.decode(Photocluster_V1_CoordinatorToClient.self, from: encoded),
                          message.requestID == Self.localRequestID else { return }
                    answered = true
                    continuation.resume(returning: message)
                    // Not while the coordinator is sending: the client leaves once the loop is free.
                    self?.loop.post { self?.forgetLocalClient(identity) }
                }, end: { reason in
                    guard !answered else { return }
                    answered = true
                    continuation.resume(returning: .with {
                        $0.requestID = Self.localRequestID
                        $0.body = .error(.with { $0.message = reason; $0.refusal = .unavailable })
                    })
                })
                handle(Self.localRequest(body), from: identity, requester: requester, bytes: bytes)
            }
        }
    }

    /// Watches a job as a client connection does (`WatchJob` with every photo's status and the
    /// summary of the photos that did not succeed): the stream yields each encoded
    /// `CoordinatorToClient`, the status reply first. It ends when the caller stops reading
    /// (`onTermination`), or when more than `buffered` messages wait for the caller, which then
    /// watches again (an event stream's client resumes from its last event).
    public func watch(_ jobID: String, from requester: LocalRequester, buffered: Int = 100_000) -> AsyncStream<Data> {
        let identity = Self.localIdentity()
        let (stream, continuation) = AsyncStream<Data>.makeStream(bufferingPolicy: .bufferingOldest(buffered))
        continuation.onTermination = { [weak self] _ in self?.loop.post { self?.forgetLocalClient(identity) } }
        loop.post { [self] in
            localClients[identity] = LocalClient(requester: requester, watches: true, deliver: { encoded in
                if case .dropped = continuation.yield(encoded) { continuation.finish() }
            }, end: { _ in continuation.finish() })
            let watch = Photocluster_V1_WatchJob.with {
                $0.jobID = jobID
                $0.events = .everyPhoto
                $0.summary = .unsuccessful
            }
            handle(Self.localRequest(.watch(watch)), from: identity, requester: requester, bytes: 0)
        }
        return stream
    }

    /// One photo's status by its name, for `requester` under the rules of a status request (the
    /// job's owner and admins only): what a photo's output needs, without the status of every
    /// other photo of the job (a thumbnail of a job of 100,000 photos).
    public func photoStatus(of jobID: String, named name: String,
                            from requester: LocalRequester) async -> PhotoLookup {
        await onLoop { [self] in
            func refusal(_ message: String, _ kind: Photocluster_V1_Refusal) -> PhotoLookup {
                .refused(.with { $0.message = message; $0.refusal = kind })
            }
            guard let job = jobs[jobID] else { return refusal(noJob(jobID), .noSuchJob) }
            let asker: Requester = switch requester {
            case .operator: .operator
            case .key(let key): .client(key: key)
            }
            guard may(asker, accessJobOwnedBy: job.owner) else {
                metrics.refusedRequest(reason: "not_permitted")
                return refusal("job \(jobID) belongs to another client: only the client that submitted it and admin keys may see it or act on it", .notPermitted)
            }
            guard let index = (0..<UInt32(job.total)).first(where: { job.name(of: $0) == name }), let photo = job.photo(index) else {
                return refusal("job \(jobID) has no photo named \"\(name)\"", .noSuchJob)
            }
            return .found(job.status(of: photo))
        }
    }

    /// Counts an HTTP API request by its answer's status (any thread).
    public func countHTTPRequest(status: Int) {
        loop.post { [weak self] in self?.metrics.httpRequest(status: status) }
    }

    /// Event streams open now (loop thread, once a second).
    var openEventStreams: Int { localClients.values.reduce(0) { $0 + ($1.watches ? 1 : 0) } }

    /// Loop thread: the HTTP side of a revoked token hears nothing more (its streams end).
    func dropRevokedLocalClients() {
        guard let keys = authorizedKeys else { return }
        for (identity, client) in localClients {
            guard case .key(let key?) = client.requester, !keys.contains(key) else { continue }
            forgetLocalClient(identity, because: "the token this request came with was revoked")
        }
    }

    private func handle(_ request: Photocluster_V1_ClientToCoordinator, from identity: Data, requester: LocalRequester, bytes: Int) {
        switch requester {
        case .operator:
            handle(request, from: identity, key: nil, requester: .operator, bytes: bytes, arrivedAt: .now)
        case .key(let key):
            handle(request, from: identity, key: key, requester: .client(key: key), bytes: bytes, arrivedAt: .now)
        }
    }

    /// Ends every request and event stream from within the process, before the HTTP server
    /// stops: it waits for open responses, and an event stream stays open while its job runs.
    public func closeLocalClients() async {
        await onLoop { [self] in
            for identity in Array(localClients.keys) { forgetLocalClient(identity, because: "the coordinator is stopping; try again once it is back") }
        }
    }

    /// Loop thread: the local client is gone; it watches nothing any more.
    private func forgetLocalClient(_ identity: Data, because reason: String = "") {
        guard let client = localClients.removeValue(forKey: identity) else { return }
        unsubscribe(identity)
        client.end(reason)
    }

    private static let localRequestID: UInt64 = 1

    private static func localRequest(_ body: Photocluster_V1_ClientToCoordinator.OneOf_Body) -> Photocluster_V1_ClientToCoordinator {
        var request = Photocluster_V1_ClientToCoordinator()
        request.requestID = localRequestID
        request.protocolVersion = ProtocolVersions.current
        request.body = body
        return request
    }

    /// A routing id no connection has: 0xFF and 16 random bytes (libzmq's own ids start with a
    /// zero byte, and a connection that claims one of these is dropped).
    private static func localIdentity() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data([0xFF] + (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
