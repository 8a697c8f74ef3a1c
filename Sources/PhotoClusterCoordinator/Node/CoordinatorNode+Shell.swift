import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterScheduling
import PhotoClusterTransport

/// The node as the scheduling core's shell: what arrives goes to the core as events, and what
/// the core decides is done here, with the sockets, the journal, the writers and the clients.
extension CoordinatorNode {
    // The core's state, read by the node's queries, metrics and client requests.
    var jobs: SlotTable<String, Job> { _read { yield core.jobs } }
    var jobOrder: [String] { _read { yield core.jobOrder } }
    var openJobs: [String] { _read { yield core.openJobs } }
    var workers: SlotTable<String, WorkerRecord> { _read { yield core.workers } }
    var workerIDs: [WorkerNumber: String] { _read { yield core.workerIDs } }
    var writing: [PhotoRef: MonotonicInstant] { _read { yield core.writing } }

    /// `frames`: the worker's identity, the envelope, and the encoded photos of its results;
    /// `key`: the CURVE key the message came with (nil without CURVE).
    func receiveFromWorker(_ frames: [Data], key: String?) {
        guard frames.count >= 2, let id = RoutingIdentity.workerName(of: frames[0]),
            let message = Envelope.decode(Photocluster_V1_WorkerToCoordinator.self, from: frames[1])
        else {
            droppedFrames += 1
            metrics.droppedFrame()
            return
        }
        // A key removed (or made a client's) since this connection's handshake.
        if let refusal = keyRefusal(key, at: .workers) { return rejectMessage(from: id, key: key, why: refusal) }
        // Another key's connection holds a registered worker's routing id.
        if authorizedKeys != nil, let holder = workers[id], holder.key != key {
            return refuseImpostor(frames[0], at: .workers, holder: "worker \(id)", registeredKey: holder.key, key: key)
        }
        let isHello: Bool = { if case .hello = message.body { return true } else { return false } }()
        noteWorkerRoute(id, routingID: frames[0], hello: isHello)
        tellCore(.fromWorker(id: id, key: key, message: message, photos: frames[2...]))
    }

    /// Hands `event` to the core, then carries out what it decided, in order; what the node learns
    /// meanwhile goes in the same way once those actions are done (`CoreDriver`, which the
    /// simulator drives the core with too).
    func tellCore(_ event: CoordinatorEvent, now: MonotonicInstant = .now) {
        coreDriver.tell(event, to: core, now: now, wallClock: Date()) { perform($0) }
    }

    /// Tells the core whether any client of the job hears of each photo as it settles, when that
    /// has changed (call it after `subscribers[jobID]` changes).
    func noteEveryPhotoAudience(of jobID: String) {
        let hears = subscribers[jobID]?.everyPhoto.isEmpty == false
        guard hears != jobsToldEveryPhoto.contains(jobID) else { return }
        if hears { jobsToldEveryPhoto.insert(jobID) } else { jobsToldEveryPhoto.remove(jobID) }
        tellCore(.clientsHearEveryPhoto(job: jobID, hears))
    }

    /// A client hears of no job any more.
    func unsubscribe(_ identity: Data) {
        for job in subscribers.keys {
            subscribers[job]?.remove(identity)
            noteEveryPhotoAudience(of: job)
        }
    }

    /// Does `action`; answers whether it was done (false: a send that did not leave).
    private func perform(_ action: CoordinatorAction) -> Bool {
        switch action {
        case .sendToWorker(let id, var body):
            if case .heartbeat(var beat) = body {
                beat.sentUnixMs = UInt64(Date().timeIntervalSince1970 * 1000)
                body = .heartbeat(beat)
            }
            var message = Photocluster_V1_CoordinatorToWorker()
            message.body = body
            return send(encoded: Envelope.encode(message), to: id)
        case .sendGraphs(let id, let batch, let sequence):
            return send(encoded: batch.message(sequence: sequence), to: id)
        case .photosSettled(let jobID, let settled, let progress):
            photosSettled(jobID, settled, progress: progress)
        case .writeResult(let result, let worker, let encoded, let targets):
            queueWrite(result, from: worker, encoded: encoded, targets: targets)
        case .removeOutputs(let write, let names):
            removeOutputs(names, of: write)
        case .jobPhase(let jobID, let phase):
            publish(jobID, .phase(phase))
        case .writeIndex(let jobID):
            writeIndex(of: jobID)
        case .jobFinished(let job, let problem):
            jobFinished(job, problem: problem)
        case .jobsForgotten(let forgotten):
            forget(forgotten)
        case .journalLosses(let job, let photo, let losses):
            journaling("the losses of photo \(photo) of job \(job)") { try $0.recordWorkerLosses(losses, photo: photo, of: job) }
        case .journalJobState(let jobID):
            guard let job = jobs[jobID] else { break }
            journaling("job \(jobID)") { try $0.recordJobState(job) }
        case .stageReported(let progress, let worker, let wasted):
            metrics.stageReported(progress.stage.metricLabel, seconds: progress.seconds, bytes: progress.bytes, pixels: progress.pixels, wasted: wasted)
            if progress.stage == .decode { history.decoded(pixels: progress.pixels, job: progress.jobID, worker: worker) }
        case .spansReported(let spans, let worker):
            recordSpans(spans, from: worker)
        case .rejected(let worker, let key, let what, let reason, let why, let job, let photo):
            rejected(what, from: worker, key: key, reason: reason, why: why, job: job, photo: photo)
        case .refusedProtocol(let worker, let key, let why):
            metrics.refusedRequest(reason: "protocol_version")
            log(.error, "refused worker \(worker) with \(key.map { "key \($0)" } ?? "no key"): \(why)", worker: worker)
        case .workersChanged:
            metrics.workers(inFlight: workers.mapValues { $0.inFlight.count })
        case .count(let counter):
            count(counter)
        case .log(let level, let message, let job, let photo, let worker):
            log(level, message, job: job, photo: photo, worker: worker)
        }
        return true
    }

    /// Settled photos: journaled, told to the clients (every photo's status, then the counts
    /// once). The counts come with the action: photos settled later in the same event are told
    /// by the actions after it.
    private func photosSettled(_ jobID: String, _ settled: [(photo: PhotoRecord, worker: String?)], progress: Photocluster_V1_JobProgress) {
        guard let job = jobs[jobID] else { return }
        for (photo, worker) in settled { recordEnd(of: photo, job: jobID, worker: worker) }
        journaling("\(settled.count) photo(s) of job \(jobID)") { try $0.recordPhotos(settled.map(\.photo), of: job) }
        for (photo, _) in settled { publishStatus(of: photo, in: jobID) }
        publishProgress(progress, of: jobID)
    }

    private func count(_ counter: CoordinatorAction.Counter) {
        switch counter {
        case .requeued: metrics.requeued()
        case .retried: metrics.retried()
        case .poisonPhoto: metrics.poisonPhoto()
        case .heartbeatMissed: metrics.heartbeatMissed()
        case .droppedFrame:
            droppedFrames += 1
            metrics.droppedFrame()
        case .cancelled(let count, let reason): metrics.cancelled(count, reason: reason)
        }
    }

    /// A message from a worker whose key no longer admits it: nothing it says is believed.
    func rejectMessage(from worker: String, key: String?, why: String) {
        rejected("message", from: worker, key: key, reason: "wrong_key", why: why, job: nil, photo: nil)
    }

    /// A report or message not believed: counted, and logged at most once per worker per interval.
    private func rejected(_ what: String, from worker: String, key: String?, reason: String, why: String, job: String?, photo: UInt32?) {
        metrics.rejectedResult(reason: reason)
        let (shouldLog, unlogged) = rejectionLog.shouldLog(worker: worker)
        guard shouldLog else { return }
        if let job, let photo {
            let earlier = unlogged > 0 ? " (\(unlogged) more rejected since the last line)" : ""
            log(.warning, "rejected a \(what) from worker \(worker) for photo \(photo) of job \(job): \(why)\(earlier)", job: job, photo: photo, worker: worker)
        } else {
            let earlier = unlogged > 0 ? " (\(unlogged) more since the last line)" : ""
            log(.warning, "dropped a message from worker \(worker) with \(key.map { "key \($0)" } ?? "no key"): \(why)\(earlier)", worker: worker)
        }
    }
}
