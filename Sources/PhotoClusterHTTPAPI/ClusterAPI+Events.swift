import Foundation
import OpenAPIRuntime
import PhotoClusterCoordinator
import PhotoClusterProto

/// `GET /v1/jobs/{id}/events`: a job's photos as they settle, as Server-Sent Events.
extension ClusterAPI {
    func followJob(_ input: Operations.FollowJob.Input) async throws -> Operations.FollowJob.Output {
        // An id that is not ours (or none) starts from the beginning.
        let after = input.headers.lastEventID.flatMap { UInt32($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        switch await JobEventStream.open(input.path.id, after: after, coordinator: coordinator, requester: APICaller.current.requester) {
        case .success(let stream):
            return .ok(.init(body: .textEventStream(HTTPBody(stream, length: .unknown, iterationBehavior: .single))))
        case .failure(let problem):
            return Self.problem(problem)
        }
    }
}

/// One client's event stream of one job. It watches the job as a client connection does
/// (`CoordinatorNode.watch`): the first answer, the job's status with every photo, gives the
/// photos settled after `after` (in the order they settled, which the journal keeps across
/// restarts); then each photo as it settles, the counts, and the end.
enum JobEventStream {
    /// Seconds between comments that keep an idle stream open through proxies (and find a
    /// client that left).
    static let keepAliveInterval: Duration = .seconds(15)

    static func open(_ jobID: String, after: UInt32, coordinator: CoordinatorNode,
                     requester: LocalRequester) async -> Result<AsyncStream<ArraySlice<UInt8>>, APIProblem> {
        let messages = coordinator.watch(jobID, from: requester)
        let (body, out) = AsyncStream<ArraySlice<UInt8>>.makeStream()
        return await withCheckedContinuation { opened in
            let relay = Task {
                var incoming = messages.makeAsyncIterator()
                var events = SettledEvents(after: after)
                guard let first = await incoming.next(), let reply = Envelope.decodeClientMessage(first) else {
                    return opened.resume(returning: .failure(APIProblem(503, "the coordinator stopped before answering; try again")))
                }
                if case .error(let error)? = reply.body { return opened.resume(returning: .failure(APIProblem(error))) }
                guard case .status(let status)? = reply.body, let job = status.jobs.first else {
                    return opened.resume(returning: .failure(APIProblem(404, "no job \(jobID) on this coordinator")))
                }
                opened.resume(returning: .success(body))
                for chunk in events.start(job) { out.yield(chunk) }
                while !events.ended, let data = await incoming.next() {
                    guard let message = Envelope.decodeClientMessage(data), case .event(let event)? = message.body else { continue }
                    for chunk in events.handle(event) { out.yield(chunk) }
                }
                out.finish()
            }
            let keepAlive = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: keepAliveInterval)
                    if case .terminated = out.yield(ArraySlice(": keep-alive\n\n".utf8)) { return }
                }
            }
            out.onTermination = { _ in
                relay.cancel()
                keepAlive.cancel()
            }
        }
    }
}

/// What a job's events become on the stream, and which photos the client has had.
struct SettledEvents {
    /// The settled place of the last photo the client has had.
    private(set) var sent: UInt32
    private(set) var ended = false

    init(after: UInt32) {
        sent = after
    }

    /// From the job's status: the photos settled since `sent`, in order, the counts, and the
    /// end when the job is over.
    mutating func start(_ job: Photocluster_V1_JobSummary) -> [ArraySlice<UInt8>] {
        let missed = job.photos.filter { $0.settledSequence > sent }.sorted { $0.settledSequence < $1.settledSequence }
        var chunks = missed.compactMap { photo($0) }
        chunks.append(Self.event("progress", APIJSON.encode(APIJSON.counts(job.progress))))
        if APIJSON.isOver(job.phase) { chunks.append(end(job)) }
        return chunks
    }

    mutating func handle(_ event: Photocluster_V1_JobEvent) -> [ArraySlice<UInt8>] {
        switch event.body {
        case .photo(let status)?: return photo(status).map { [$0] } ?? []
        case .progress(let progress)?: return [Self.event("progress", APIJSON.encode(APIJSON.counts(progress)))]
        case .finished(let summary)?: return [end(summary)]
        case .phase?, nil: return []
        }
    }

    /// A settled photo not sent yet, with its place as the event's id.
    private mutating func photo(_ status: Photocluster_V1_PhotoStatus) -> ArraySlice<UInt8>? {
        guard status.settledSequence > sent, let photo = APIJSON.photo(status) else { return nil }
        sent = status.settledSequence
        return Self.event("photo", APIJSON.encode(photo), id: String(sent))
    }

    /// The job's end, with the last photo's id again: a client that reconnects after it hears
    /// nothing more than the end.
    private mutating func end(_ job: Photocluster_V1_JobSummary) -> ArraySlice<UInt8> {
        ended = true
        return Self.event("end", APIJSON.encode(APIJSON.job(job)), id: String(sent))
    }

    static func event(_ name: String, _ data: String, id: String? = nil) -> ArraySlice<UInt8> {
        var text = "event: \(name)\n"
        if let id { text += "id: \(id)\n" }
        text += "data: \(data)\n\n"
        return ArraySlice(text.utf8)
    }
}

extension Envelope {
    static func decodeClientMessage(_ data: Data) -> Photocluster_V1_CoordinatorToClient? {
        decode(Photocluster_V1_CoordinatorToClient.self, from: data)
    }
}
