import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterProtocol

/// Messages from workers, and what becomes of their photos.
extension CoordinatorCore {
    /// A worker's message: `photos` holds the frames after the envelope (one for a lone result,
    /// any number for a batch of reports); `key`: the CURVE key it came with (nil without CURVE),
    /// which the shell found still admitted as a worker's.
    package func receiveFromWorker(_ id: String, _ message: Photocluster_V1_WorkerToCoordinator, photos: ArraySlice<Data>, key: String?) {
        guard photos.count <= 1 || isBatch(message) else { return count(.droppedFrame) }
        if case .hello(let hello) = message.body {
            register(id, hello, key: key)
            return
        }
        guard let worker = workers[id] else {
            // A worker we do not know (it or we restarted): ask it to introduce itself.
            sendToWorker(id, .pleaseRegister(Photocluster_V1_PleaseRegister()))
            return
        }
        // Another key's connection took this worker's id (see `register`).
        guard worker.key == key else { return rejectMessage(from: id, key: key, why: "worker \(id) registered with another key") }
        workers[id]?.lastSeen = now
        if workers[id]?.unreachable == true { workers[id]?.unreachable = false }
        switch message.body {
        case .credit(let credit):
            grantCredit(Int(credit.grant), to: id)
            dispatch(to: id)
        case .progress(let progress):
            handle(.progress(progress), from: id)
        case .result(let result):
            // A worker sends the photo as a frame of its own; a result without one carries it inside.
            handle(.result(result), photo: photos.first ?? result.encoded, from: id)
        case .failure(let failure):
            handle(.failure(failure), from: id)
        case .cancelled(let cancelled):
            handle(.cancelled(cancelled), from: id)
        case .ack(let ack):
            controlAcknowledged(ack, by: id)
        case .reports(let batch):
            receiveReports(batch, photos: photos, from: id)
        case .goodbye:
            loseWorker(id, .left)
        case .draining(let drain):
            // Once: a worker that says it again (after a reconnect) is still draining the same way.
            guard workers[id]?.draining?.timeoutMs ?? 0 == 0 else { break }
            workers[id]?.draining = drain
            workers[id]?.credits = 0
            log("worker \(id) is draining\(drain.stays ? " (asked by an admin; it stays idle afterwards)" : ""): \(drain.running) photos running, "
                + "\(drain.handedBack) handed back; up to \(drain.timeoutMs / 1000) s", worker: id)
        case .heartbeat(let beat):
            workers[id]?.stages = beat.stages
            workers[id]?.memory = (beat.memoryLimitBytes, beat.memoryBudgetBytes, beat.memoryInUseBytes, beat.photosWaitingForMemory, beat.residentBytes)
            // One said for an earlier hello (it waited in a socket the worker has since replaced,
            // and was read after the new hello), or accounting for assignments this registration
            // never sent (it left before the welcome and counts the registration before: a worker
            // of an older build says so until the welcome): what it holds and has free is not
            // this registration's.
            guard let worker = workers[id], beat.helloNumber == 0 || beat.helloNumber == worker.helloNumber,
                beat.assignSequence <= worker.assignSequence
            else { break }
            reconcile(beat, from: id)
            resyncCredit(beat, from: id)
        case .hello, .none:
            break
        }
    }

    /// An admin's drain: the worker is given nothing from now on (before it answers, with its
    /// own `WorkerDraining`), and told to drain and stay.
    package func askToDrain(_ id: String, timeoutMs: UInt32) {
        guard let worker = workers[id], worker.draining == nil else { return }
        worker.draining = .with { $0.stays = true }
        worker.credits = 0
        log("worker \(id): asked to drain (cluster drain)", worker: id)
        sendToWorker(id, .drain(.with { $0.timeoutMs = timeoutMs }))
    }

    /// A message from a worker whose connection is not the key it registered with: nothing it
    /// says is believed.
    package func rejectMessage(from worker: String, key: String?, why: String) {
        emit(.rejected(worker: worker, key: key, what: "message", reason: "wrong_key", why: why, job: nil, photo: nil))
    }

    private func isBatch(_ message: Photocluster_V1_WorkerToCoordinator) -> Bool {
        if case .reports = message.body { return true }
        return false
    }

    private func register(_ id: String, _ hello: Photocluster_V1_WorkerHello, key: String?) {
        if let previous = workers[id], previous.key != key {
            // Two keys claiming one id: the one registered keeps it until it is lost.
            return rejectMessage(from: id, key: key, why: "worker \(id) is registered with \(previous.key.map { "key \($0)" } ?? "no key"); "
                + "its hello is ignored until that worker is lost (give each worker its own --id)")
        }
        // After the key: a refusal goes to the id, which must be this key's.
        if let reason = ProtocolVersions.refusal(of: hello.protocolVersion, peer: "worker \(id)") {
            return refuseProtocol(of: id, reason: reason, key: key)
        }
        // Photos it says it still holds keep running there (a worker that only lost touch for a
        // moment must not have its work dropped and redone, over and over under load).
        // Bounded like credit: a worker never holds more than its window, so a hello claiming a
        // million photos costs the loop no more than an honest one (the rest are not looked at).
        let claimLimit = Self.heldClaimLimit(creditLimit: settings.workerBudgets.creditLimit(announced: hello.concurrency))
        if hello.inFlight.count > claimLimit {
            log(.warning, "worker \(id) claims to hold \(hello.inFlight.count) photos, more than its credit window allows; only the first \(claimLimit) are considered",
                worker: id)
        }
        let stillHeld = Set(hello.inFlight.prefix(claimLimit).map { PhotoRef(job: $0.jobID, index: $0.photoIndex) })
        var kept: Set<PhotoRef> = []
        var previousNumber = WorkerNumber.none
        if let previous = workers[id] {
            previousNumber = previous.number
            // Same identity again: it reconnected or restarted. What it no longer holds goes back
            // to the queue; what it holds but we did not give it, it drops. A restarted process
            // (another incarnation) holds nothing: the old one died with its photos.
            let restarted = !hello.incarnation.isEmpty && hello.incarnation != previous.incarnation
            kept = restarted ? [] : previous.inFlight.intersection(stillHeld)
            workers[id]!.replaceInFlight(previous.inFlight.subtracting(kept))
            // No dispatch in between: without this worker, photos only it can run would fail.
            loseWorker(id, restarted ? .restarted : .reconnected, dispatching: false)
        } else {
            forgiveLosses(ofReturning: id, incarnation: hello.incarnation)
        }
        let stale = stillHeld.subtracting(kept)
        if !stale.isEmpty {
            sendToWorker(id, .dropStale(.with { drop in
                drop.photos = stale.map { ref in .with { $0.jobID = ref.job; $0.photoIndex = ref.index } }
            }))
        }
        // Same identity, same number: the photos it kept stay in flight on it.
        let number = previousNumber != .none ? previousNumber : newWorkerNumber()
        workers[id] = WorkerRecord(
            id: id, number: number, key: key, host: hello.host, concurrency: hello.concurrency,
            creditLimit: settings.workerBudgets.creditLimit(announced: hello.concurrency), incarnation: hello.incarnation,
            filters: Dictionary(hello.filters.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first }),
            protocolVersion: hello.protocolVersion, helloNumber: hello.helloNumber, lastSeen: now)
        workerIDs[number] = id
        workers[id]!.keep(kept, at: now)
        var welcome = Photocluster_V1_Welcome()
        welcome.coordinatorID = settings.coordinatorID
        welcome.heartbeatIntervalMs = UInt32(settings.heartbeatInterval * 1000)
        welcome.heartbeatLiveness = UInt32(settings.heartbeatLiveness)
        welcome.maxResultBytes = UInt64(resultLimit)
        welcome.protocolVersion = ProtocolVersions.current
        let open = openJobs.compactMap { jobs[$0] }
        welcome.openJobs.jobIds = open.map(\.id)
        sendToWorker(id, .welcome(welcome))
        // Bring it up to date with every open job's control state.
        for job in open { sendControlState(job.controlState, to: id) }
        emit(.workersChanged)
        log("worker \(id) joined from \(hello.host) (concurrency \(hello.concurrency), filters: \(hello.filters.map(\.name).sorted().joined(separator: ", ")))", worker: id)
        if hello.protocolVersion < ProtocolNeeds.newCodecs {
            log(.notice, "worker \(id) speaks protocol \(hello.protocolVersion): it is sent no photo that needs protocol \(ProtocolNeeds.newCodecs) "
                + "(AVIF output, --chroma, a HEIC, AVIF, TIFF, GIF or JPEG XL input); upgrade it", worker: id)
        }
        capabilitiesChanged = true
    }

    /// A hello of a protocol version this coordinator does not accept: the worker is told why
    /// (it backs off before saying hello again) and is not registered; a worker registered under
    /// that id before stays until it is lost.
    private func refuseProtocol(of id: String, reason: String, key: String?) {
        sendToWorker(id, .refused(.with {
            $0.coordinatorVersion = ProtocolVersions.current
            $0.oldestAccepted = ProtocolVersions.oldestAccepted
            $0.reason = reason
        }))
        emit(.refusedProtocol(worker: id, key: key, why: reason))
    }

    /// The most held photos a hello or heartbeat may name that are looked at: twice the credit
    /// window and some (a reconnected worker may still hold what it kept besides new graphs).
    package static func heldClaimLimit(creditLimit: Int) -> Int { 2 * creditLimit + 16 }

    private func newWorkerNumber() -> WorkerNumber {
        lastWorkerNumber += 1
        return WorkerNumber(value: lastWorkerNumber)
    }

    /// "no photos", "1 photo", "3 photos", as a log line says it.
    package static func photoCount(_ count: Int) -> String {
        count == 0 ? "no photos" : count == 1 ? "1 photo" : "\(count) photos"
    }

    /// Removes a worker and puts every photo it held back in the queue (and, `dispatching`,
    /// hands them to the others). A worker that died or may have (`departure.charges`) charges
    /// each photo it held the loss (see `chargeLosses`); one that left in good order lost
    /// nothing, and its photos go back to the front of the queue.
    package func loseWorker(_ id: String, _ departure: WorkerDeparture, dispatching: Bool = true) {
        guard let worker = workers.removeValue(forKey: id) else { return }
        workerIDs.removeValue(forKey: worker.number)
        if reservedForSuspects == id { reservedForSuspects = nil }
        let held = worker.inFlight.filter { jobs[$0.job]?.photo($0.index)?.worker == worker.number }.sorted { ($0.job, $0.index) < ($1.job, $1.index) }
        log(.warning, "worker \(id) lost (\(departure.reason)); it held \(Self.photoCount(held.count))", worker: id)
        if departure.charges {
            chargeLosses(held, lostWith: worker, forgivable: departure.mayComeBack)
        } else {
            for ref in held {
                jobs[ref.job]?.requeue(ref.index)
                count(.requeued)
            }
        }
        for ref in worker.cached where jobs[ref.job]?.photo(ref.index)?.cachedOn == worker.number {
            jobs[ref.job]?.noteCached(ref.index, on: .none)
        }
        capabilitiesChanged = true
        emit(.workersChanged)
        if dispatching { dispatch() }
    }
}
