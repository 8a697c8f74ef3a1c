import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterTransport

/// Something that happened to a job: a phase change, a photo's status, the job's counts, or its
/// final summary (`body`), for the job `jobID`.
public typealias JobEvent = Photocluster_V1_JobEvent
/// A job's state: its phase, counts, viewport and, when asked for, every photo's status.
public typealias JobSummary = Photocluster_V1_JobSummary
/// The coordinator's answer to `status` and `watch`: its workers, throughput and jobs.
public typealias StatusReply = Photocluster_V1_StatusReply
/// A job to run: the manifest's entries, the filter chain, the output directory and format, how
/// much of its progress the client wants to hear (`events`) and what its summary lists (`summary`).
public typealias SubmitJob = Photocluster_V1_SubmitJob
/// How much of a job a client hears: every photo's status (`.everyPhoto`) or only the job's
/// counts, at most ten times a second and always the last (`.counts`).
public typealias EventDetail = Photocluster_V1_EventDetail
/// What a finished job's summary lists: every photo's status (`.everyPhoto`), or only the
/// photos that failed or were cancelled (`.unsuccessful`; the counts say the rest, and the job's
/// index.json lists every photo). A summary of every photo of a large job is megabytes.
public typealias SummaryDetail = Photocluster_V1_SummaryDetail
/// Why the coordinator refused a request, when it says: another client's job
/// (`.notPermitted`), an output directory outside its `--output-root` (`.outputOutsideRoot`), a
/// job over its size limits (`.tooLarge`), too many open jobs (`.tooManyJobs`), this client's
/// key no longer authorized (`.keyRemoved`, after which every request fails), an output
/// directory of another client key (`.outputNotOwned`), one holding another job's outputs without
/// `replaceOutputs` (`.outputOccupied`), or an `s3://` location outside the key's grants
/// (`.storageNotGranted`).
public typealias Refusal = Photocluster_V1_Refusal
/// A job's stages as the coordinator's task stream keeps them (`trace(job:)`).
public typealias TaskTrace = Photocluster_V1_TaskTrace
/// One stage of one photo on one worker: its worker, job, photo and times.
public typealias TaskSpan = Photocluster_V1_TaskSpan

/// Why a request to the coordinator did not succeed: the coordinator's refusal (an unknown job, a
/// viewport outside the job's photos, a manifest it rejects), no answer before the timeout, or a
/// closed client. `message` says which, in words a user can act on.
public struct ClusterClientError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and, where it helps, what to do about it.
    public let message: String
    /// What kind of refusal it was, when the coordinator said (`unspecified` otherwise): the
    /// CLI exits 2 for a job it will never take as it is (`outputOutsideRoot`, `tooLarge`,
    /// `outputNotOwned`, `outputOccupied`, `storageNotGranted`).
    public let refusal: Refusal
    /// An error that says `message`, of the kind `refusal`.
    public init(_ message: String, refusal: Refusal = .unspecified) {
        self.message = message
        self.refusal = refusal
    }
    public var description: String { message }
}

/// A job the coordinator accepted, with its events as they happen.
public struct SubmittedJob: Sendable {
    /// The job's id, as `cluster status`, `cluster watch` and the dashboard name it.
    public let id: String
    /// How many photos the job holds.
    public let total: Int
    /// Phase changes, each photo as it finishes, progress, and finally the summary; the stream
    /// ends after the summary.
    public let events: AsyncStream<JobEvent>
}

/// A job's event stream, and how much the client asked to hear of it.
private struct FollowedJob {
    let stream: AsyncStream<JobEvent>.Continuation
    let detail: EventDetail
    let summary: SummaryDetail
}

/// Talks to a coordinator's client endpoint: submit jobs, follow their events, ask for status,
/// move a job's viewport, suspend, resume and cancel. `cluster submit`, `status`, `watch`,
/// `viewport` and the others are built on it.
///
/// ```swift
/// let client = try ClusterClient(endpoint: "tcp://127.0.0.1:7001")
/// defer { client.close() }
/// var job = SubmitJob()
/// job.photos = [.with { $0.name = "cat"; $0.url = "https://example.com/cat.jpg" }]
/// job.filters = [.with { $0.name = "sepia" }]
/// job.outputDir = "/srv/photocluster/out/cats"   // on the coordinator's host
/// job.events = .counts
/// let submitted = try await client.submit(job)
/// for await event in submitted.events {
///     if case .finished(let summary) = event.body {
///         print(summary.progress.succeeded, "of", submitted.total, "succeeded")
///     }
/// }
/// ```
///
/// Every request waits for the coordinator's answer up to its `timeout` and throws
/// ``ClusterClientError`` when there is none, naming the endpoint. A client renews its watch of
/// the jobs it follows every 2 s, so it follows them again after the coordinator restarts.
///
/// Given several endpoints (a leading coordinator and its standbys, which bind no port until
/// they lead), the client talks to one at a time and moves to the next when it refuses
/// connections or falls silent, taking along its unanswered requests and its watches (see
/// `ClusterClient+Failover.swift`).
///
/// The DEALER socket and the request table belong to the client's loop thread; the public
/// methods post to it and wait for the answer, so they may be called from any thread.
public final class ClusterClient: @unchecked Sendable {
    /// Every coordinator client endpoint this client may talk to, in the order it tries them.
    public let endpoints: [String]
    /// The coordinator's client endpoint this client talks to now: the one given to
    /// ``init(endpoint:context:curve:)``, or the one of ``endpoints`` in use.
    public var endpoint: String { endpointInUse.current }
    /// Written by the loop thread as it opens each socket; read from any thread.
    let endpointInUse: LockedBox<String>
    let context: ZMQContext
    private let ownsContext: Bool
    let loop = EventLoopThread(name: "client")
    let curve: CurveClientSettings?
    /// Seconds of silence from the endpoint in use after which the client tries the next.
    let silenceBeforeMoving: TimeInterval

    // Loop-thread state.
    /// Nil between leaving an endpoint and opening the socket to the next (see `rotation`).
    var socket: ZMQSocket?
    private var nextRequestID: UInt64 = 1
    /// Requests waiting for their answer, by request id.
    var waiting: [UInt64: WaitingRequest] = [:]
    private var streamsByRequest: [UInt64: FollowedJob] = [:]
    private var streamsByJob: [String: FollowedJob] = [:]
    /// Watch requests the client sends by itself for the jobs it follows, by request id.
    private var rewatches: [UInt64: String] = [:]
    private var ticks = 0
    private let lastHeard = LockedBox(MonotonicInstant.now)
    /// Reports a refused CURVE handshake (which libzmq never retries), so requests fail with
    /// the reason at once instead of waiting out their timeout; with several endpoints, also
    /// connections made, refused and dropped.
    var monitor: SocketMonitor?
    private var publicKey: String?
    /// Why the coordinator will not talk to this client, once it has said so.
    private var shutOutReason: ClusterClientError?
    /// Requests the socket would not take (no connection yet, or one just refused), sent again
    /// on each tick until their deadline, by request id.
    var unsent: [UInt64: Data] = [:]
    /// Which endpoint the socket talks to, and when the next may be tried.
    var rotation: EndpointRotation
    /// When to open the socket to the endpoint moved to (nil: not waiting).
    var openMovedSocketAt: MonotonicInstant?
    /// Whether the socket in use ever connected: requests sent on one that never did never left.
    var connectedSinceOpen = false
    /// The last answer, or the last move: the current endpoint's silence counts from it.
    var lastSignOfLife = MonotonicInstant.now

    /// Connects to `endpoint` (libzmq retries until the coordinator is there).
    ///
    /// - Parameters:
    ///   - endpoint: The coordinator's client endpoint, such as `tcp://coordinator:7001`
    ///     (`cluster coordinator --client-bind`), or an embedded cluster's `inproc://` one.
    ///   - context: The embedded cluster's context, to reach it over `inproc://`; nil makes a
    ///     context of the client's own.
    ///   - curve: The coordinator's public key and this client's key pair, for a coordinator
    ///     that uses CURVE; nil for plain TCP or `inproc://`.
    /// - Throws: When the socket cannot be made or the endpoint is malformed.
    public convenience init(endpoint: String, context: ZMQContext? = nil, curve: CurveClientSettings? = nil) throws {
        try self.init(endpoints: [endpoint], context: context, curve: curve)
    }

    /// Talks to whichever of `endpoints` answers: the leading coordinator among standbys.
    ///
    /// The client connects to the first, and moves to the next (wrapping) when the one in use
    /// refuses connections (a standby binds no port until it leads) or stays silent for
    /// `silenceBeforeMoving` seconds (a frozen coordinator). Requests not yet answered go to the
    /// next one (a submit only if it cannot have reached the one left, so a job is never
    /// submitted twice), and the jobs it follows are watched there at once. With one endpoint it
    /// behaves as ``init(endpoint:context:curve:)``.
    ///
    /// - Parameters:
    ///   - endpoints: The coordinators' client endpoints, at least one.
    ///   - context: As for ``init(endpoint:context:curve:)``.
    ///   - curve: As for ``init(endpoint:context:curve:)``; every coordinator has the same key.
    ///   - silenceBeforeMoving: Seconds without a word from the endpoint in use (the client
    ///     sends a heartbeat every second, which a coordinator answers) before it tries the next.
    /// - Throws: ``ClusterClientError`` for an empty list; otherwise when the socket cannot be
    ///   made or the first endpoint is malformed.
    public init(
        endpoints: [String], context: ZMQContext? = nil, curve: CurveClientSettings? = nil,
        silenceBeforeMoving: TimeInterval = ClusterClient.defaultSilenceBeforeMoving
    ) throws {
        guard let first = endpoints.first else {
            throw ClusterClientError("no coordinator endpoint given: name at least one, such as tcp://coordinator:7001")
        }
        self.endpoints = endpoints
        self.endpointInUse = LockedBox(first)
        self.rotation = EndpointRotation(endpoints)
        self.curve = curve
        self.silenceBeforeMoving = silenceBeforeMoving
        self.publicKey = curve?.keys.publicKey
        self.ownsContext = context == nil
        self.context = try context ?? ZMQContext()
        try openSocket()
        scheduleMoves()
        loop.every(1) { [unowned self] in tick() }
        loop.start { [unowned self] in closeSocket() }
    }

    /// Seconds since the coordinator last answered anything (its heartbeat answers included).
    public var silence: TimeInterval { MonotonicInstant.now.seconds(since: lastHeard.current) }

    /// Fails every request still waiting, ends every event stream, and closes the socket. Call
    /// it once, when done with the client.
    public func close() {
        loop.post { [unowned self] in
            for (_, request) in waiting { request.resume(.failure(ClusterClientError("the client was closed"))) }
            waiting.removeAll()
            for followed in streamsByJob.values { followed.stream.finish() }
            streamsByJob.removeAll()
        }
        loop.stop()
        if ownsContext { context.terminate() }
    }

    // MARK: - Requests

    /// Submits a job and follows it.
    ///
    /// - Parameters:
    ///   - job: The job; its `events` field says how much of its progress the stream carries.
    ///   - timeout: Seconds to wait for the coordinator to accept it.
    /// - Returns: The accepted job: its id, its number of photos, and its events, which end after
    ///   the job's summary (`.finished`).
    /// - Throws: ``ClusterClientError`` when the coordinator refuses the job (a malformed
    ///   manifest, a filter no worker has) or does not answer.
    public func submit(_ job: SubmitJob, timeout: TimeInterval = 15) async throws -> SubmittedJob {
        let (events, continuation) = AsyncStream<JobEvent>.makeStream(bufferingPolicy: .unbounded)
        let reply = try await request(.submit(job), timeout: timeout) { [unowned self] requestID in
            streamsByRequest[requestID] = FollowedJob(stream: continuation, detail: job.events, summary: job.summary)
        }
        guard case .accepted(let accepted) = reply.body else {
            throw ClusterClientError("unexpected answer to submit")
        }
        return SubmittedJob(id: accepted.jobID, total: Int(accepted.total), events: events)
    }

    /// Follows a job submitted elsewhere.
    ///
    /// - Parameters:
    ///   - jobID: The job to follow.
    ///   - detail: Every photo's status, or only the job's counts (paced; see ``EventDetail``).
    ///   - summary: What the job's summary lists when it ends (see ``SummaryDetail``).
    ///   - timeout: Seconds to wait for the coordinator's answer.
    /// - Returns: The job's status now, and its events from now on; the first event is its
    ///   summary if it has already finished.
    /// - Throws: ``ClusterClientError`` for a job the coordinator does not know (or has
    ///   forgotten: it keeps the last `--keep-finished` finished jobs), or no answer.
    public func watch(
        _ jobID: String, events detail: EventDetail = .everyPhoto, summary: SummaryDetail = .everyPhoto, timeout: TimeInterval = 15
    ) async throws -> (StatusReply, AsyncStream<JobEvent>) {
        let (events, continuation) = AsyncStream<JobEvent>.makeStream(bufferingPolicy: .unbounded)
        let reply = try await request(.watch(.with { $0.jobID = jobID; $0.events = detail; $0.summary = summary }), timeout: timeout) { [unowned self] _ in
            streamsByJob[jobID] = FollowedJob(stream: continuation, detail: detail, summary: summary)
        }
        guard case .status(let status) = reply.body else { throw ClusterClientError("unexpected answer to watch") }
        return (status, events)
    }

    /// The coordinator's workers, throughput and jobs, or one job with every photo.
    ///
    /// - Parameters:
    ///   - job: A job's id, or "" for every job (without their photos).
    ///   - timeout: Seconds to wait for the answer.
    /// - Throws: ``ClusterClientError`` for an unknown job, or no answer.
    public func status(job: String = "", timeout: TimeInterval = 15) async throws -> StatusReply {
        let reply = try await request(.status(.with { $0.jobID = job }), timeout: timeout)
        guard case .status(let status) = reply.body else { throw ClusterClientError("unexpected answer to status") }
        return status
    }

    /// Every stage of a job's photos that the coordinator's task stream still keeps, with the
    /// worker that ran it and when (`cluster trace` writes it as a Chrome trace).
    ///
    /// - Throws: ``ClusterClientError`` for an unknown job, another client's job, or no answer.
    public func trace(job: String, timeout: TimeInterval = 30) async throws -> TaskTrace {
        let reply = try await request(.trace(.with { $0.jobID = job }), timeout: timeout)
        guard case .trace(let trace) = reply.body else { throw ClusterClientError("unexpected answer to trace") }
        return trace
    }

    /// Cancels a job, or some of its photos, for good: queued photos at once, running ones where
    /// they run (a transfer aborts, a filter stops at its next band of rows).
    ///
    /// - Parameters:
    ///   - job: The job's id.
    ///   - photos: Names of photos to cancel; empty cancels the whole job.
    ///   - timeout: Seconds to wait for the answer.
    /// - Throws: ``ClusterClientError`` for an unknown job, or no answer.
    public func cancel(job: String, photos: [String] = [], timeout: TimeInterval = 15) async throws {
        _ = try await request(.cancel(.with { $0.jobID = job; $0.photoNames = photos }), timeout: timeout)
    }

    /// Tells the cluster which photos the client looks at. While `scrolling`, the job is suspended
    /// on every worker; once settled, photos in flight outside `visible` ± `prefetch` are
    /// cancelled, the ones inside run, visible first, and the job resumes.
    ///
    /// - Parameters:
    ///   - job: The job's id (a job submitted with a viewport, or any open job).
    ///   - visible: Manifest indices on screen.
    ///   - prefetch: Photos on each side of `visible` to run next, at a lower priority; 0 for none.
    ///   - scrolling: True while the view moves.
    ///   - timeout: Seconds to wait for the answer.
    /// - Returns: The job's summary (without photos) at the new epoch.
    /// - Throws: ``ClusterClientError`` for an unknown or finished job, a range outside its
    ///   photos, or no answer.
    @discardableResult
    public func setViewport(job: String, visible: ClosedRange<Int>, prefetch: Int = 0, scrolling: Bool = false, timeout: TimeInterval = 15) async throws -> JobSummary {
        let viewport = Photocluster_V1_Viewport.with {
            $0.visibleStart = UInt32(max(0, visible.lowerBound))
            $0.visibleEnd = UInt32(max(0, visible.upperBound))
            $0.prefetch = UInt32(max(0, prefetch))
            $0.scrolling = scrolling
        }
        let reply = try await request(.viewport(.with { $0.jobID = job; $0.viewport = viewport }), timeout: timeout)
        guard case .status(let status) = reply.body, let summary = status.jobs.first else {
            throw ClusterClientError("unexpected answer to viewport")
        }
        return summary
    }

    /// Stops new work of a job from starting anywhere; running operations finish.
    ///
    /// - Throws: ``ClusterClientError`` for an unknown job, or no answer.
    public func suspend(job: String, timeout: TimeInterval = 15) async throws {
        _ = try await request(.suspend(.with { $0.jobID = job }), timeout: timeout)
    }

    /// Lets a suspended job start work again.
    ///
    /// - Throws: ``ClusterClientError`` for an unknown job, or no answer.
    public func resume(job: String, timeout: TimeInterval = 15) async throws {
        _ = try await request(.resume(.with { $0.jobID = job }), timeout: timeout)
    }

    /// Asks a worker to drain and stay idle (an admin key's action): it finishes what runs within
    /// `drainTimeout` seconds (nil: its own --drain-timeout) and takes nothing more.
    ///
    /// - Throws: ``ClusterClientError`` for a key that is not an admin's, an unknown worker, or no answer.
    public func drain(worker: String, drainTimeout: TimeInterval? = nil, timeout: TimeInterval = 15) async throws {
        _ = try await request(.drain(.with {
            $0.workerID = worker
            $0.timeoutMs = UInt32(clamping: Int(((drainTimeout ?? 0) * 1000).rounded()))
        }), timeout: timeout)
    }

    /// Said on every message: a coordinator refuses a version it does not accept, with a reason.
    private static let protocolVersion = UInt32(Photocluster_V1_ProtocolVersion.current.rawValue)

    /// Whether a request may go to another coordinator when the one it was sent to left without
    /// answering: every request but a submit, which the one left may have accepted (sent twice,
    /// the job would run twice).
    private static func isResendable(_ body: Photocluster_V1_ClientToCoordinator.OneOf_Body) -> Bool {
        if case .submit = body { return false }
        return true
    }

    private func request(
        _ body: Photocluster_V1_ClientToCoordinator.OneOf_Body, timeout: TimeInterval,
        prepare: @escaping (UInt64) -> Void = { _ in }
    ) async throws -> Photocluster_V1_CoordinatorToClient {
        return try await withCheckedThrowingContinuation { continuation in
            loop.post { [unowned self] in
                let requestID = nextRequestID
                nextRequestID += 1
                if let shutOutReason { return continuation.resume(throwing: shutOutReason) }
                prepare(requestID)
                var message = Photocluster_V1_ClientToCoordinator()
                message.requestID = requestID
                message.protocolVersion = Self.protocolVersion
                message.body = body
                let payload = Envelope.encode(message)
                waiting[requestID] = WaitingRequest(
                    deadline: MonotonicInstant.now.adding(seconds: timeout), payload: payload, resendable: Self.isResendable(body),
                    resume: { result in continuation.resume(with: result.mapError { $0 as Error }) })
                send(requestID, payload)
            }
        }
    }

    // MARK: - Loop thread

    /// Sends a request, or keeps it for the next tick when there is no connection to take it:
    /// a refused handshake drops the connection, and the refusal is what the caller must hear,
    /// not "would block".
    func send(_ requestID: UInt64, _ payload: Data) {
        guard let socket else {
            unsent[requestID] = payload  // between two endpoints: sent once the next one opens
            return
        }
        do {
            try socket.send([payload], dontWait: true)
            unsent.removeValue(forKey: requestID)
        } catch let error as ZMQError where error.isWouldBlock {
            unsent[requestID] = payload
            connectionEvents()
        } catch {
            unsent.removeValue(forKey: requestID)
            fail(requestID, ClusterClientError("cannot send to the coordinator at \(rotation.current): \(error)"))
        }
    }

    private func fail(_ requestID: UInt64, _ error: ClusterClientError) {
        unsent.removeValue(forKey: requestID)
        streamsByRequest.removeValue(forKey: requestID)?.stream.finish()
        waiting.removeValue(forKey: requestID)?.resume(.failure(error))
    }

    func receive(_ frames: [Data]) {
        guard let payload = frames.last, let message = Envelope.decode(Photocluster_V1_CoordinatorToClient.self, from: payload) else { return }
        lastHeard.withLock { $0 = .now }
        heardFromCoordinator()
        if case .event(let event) = message.body {
            deliver(event)
            return
        }
        if let job = rewatches.removeValue(forKey: message.requestID) {
            // The coordinator no longer knows the job (it restarted without its journal).
            if case .error = message.body { streamsByJob.removeValue(forKey: job)?.stream.finish() }
            return
        }
        if case .error(let error) = message.body {
            if error.refusal == .keyRemoved { return refuseEverything(ClusterClientError(error.message, refusal: .keyRemoved)) }
            return fail(message.requestID, ClusterClientError(error.message, refusal: error.refusal))
        }
        if case .accepted(let accepted) = message.body, let followed = streamsByRequest.removeValue(forKey: message.requestID) {
            streamsByJob[accepted.jobID] = followed
        }
        waiting.removeValue(forKey: message.requestID)?.resume(.success(message))
    }

    private func deliver(_ event: JobEvent) {
        guard let stream = streamsByJob[event.jobID]?.stream else { return }
        stream.yield(event)
        if case .finished = event.body {
            stream.finish()
            streamsByJob.removeValue(forKey: event.jobID)
        }
    }

    /// The coordinator will not talk to this client: every request fails with `error`, now and later.
    private func refuseEverything(_ error: ClusterClientError) {
        shutOutReason = error
        for id in Array(waiting.keys) { fail(id, error) }
        for followed in streamsByJob.values { followed.stream.finish() }
        streamsByJob.removeAll()
    }

    private func tick() {
        let now = MonotonicInstant.now
        connectionEvents()
        moveIfSilent(now: now)
        for (id, payload) in unsent where waiting[id] != nil { send(id, payload) }
        for (id, request) in waiting where request.deadline < now {
            fail(id, ClusterClientError("no answer from \(coordinatorsNamed); is it running? (start one with `cluster coordinator`; if it uses CURVE, pass --curve-secret and --coordinator-key)"))
        }
        var beat = Photocluster_V1_ClientToCoordinator()
        beat.protocolVersion = Self.protocolVersion
        beat.body = .heartbeat(Photocluster_V1_Heartbeat())
        try? socket?.send([Envelope.encode(beat)], dontWait: true)
        ticks += 1
        if ticks % 2 == 0 { rewatchFollowedJobs() }
    }

    /// The coordinator refused this client's CURVE key: every request fails with the reason.
    func refuseBecauseHandshakeFailed() {
        guard shutOutReason == nil else { return }
        refuseEverything(ClusterClientError(
            "the coordinator at \(rotation.current) refused this client's key \(publicKey ?? ""): it is not authorized as a client "
                + "(not listed, or listed as a worker); ask its operator to add it to the authorized keys as `client \(publicKey ?? "KEY")`",
            refusal: .keyRemoved))
    }

    /// Asks again to follow every job with an open stream. A coordinator that restarted (and
    /// restored its jobs from the journal) learns of us again this way; for one that never
    /// forgot, the request changes nothing.
    func rewatchFollowedJobs() {
        rewatches.removeAll()
        for (job, followed) in streamsByJob {
            let requestID = nextRequestID
            nextRequestID += 1
            rewatches[requestID] = job
            var message = Photocluster_V1_ClientToCoordinator()
            message.requestID = requestID
            message.protocolVersion = Self.protocolVersion
            // As much as the client first asked for: a watch without it would ask for every photo.
            message.body = .watch(.with { $0.jobID = job; $0.events = followed.detail; $0.summary = followed.summary; $0.renewal = true })
            try? socket?.send([Envelope.encode(message)], dontWait: true)
        }
    }
}

/// A request waiting for its answer: its deadline (on the monotonic clock: a wall clock step
/// must not fail or stall requests), what was sent, whether it may go to another coordinator,
/// and the caller to resume. Owned by the client's loop thread.
struct WaitingRequest {
    let deadline: MonotonicInstant
    let payload: Data
    let resendable: Bool
    let resume: (Result<Photocluster_V1_CoordinatorToClient, ClusterClientError>) -> Void
}
