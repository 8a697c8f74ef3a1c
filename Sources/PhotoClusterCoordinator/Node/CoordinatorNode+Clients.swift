import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterProtocol
import PhotoClusterScheduling
import PhotoClusterStorage

/// Requests from clients: submit, status, watch, cancel.
extension CoordinatorNode {
    /// `key`: the CURVE key the message came with (nil without CURVE); `arrivedAt`: when the
    /// loop read the request, the start of a control change's clock.
    func receiveFromClient(_ frames: [Data], key: String?, arrivedAt: MonotonicInstant = .now) {
        guard frames.count == 2, let request = Envelope.decode(Photocluster_V1_ClientToCoordinator.self, from: frames[1]) else {
            droppedFrames += 1
            metrics.droppedFrame()
            return
        }
        let client = frames[0]
        // An id that stands for a client in this process: no connection speaks for it.
        if localClients[client] != nil {
            droppedFrames += 1
            metrics.droppedFrame()
            return
        }
        let id = request.requestID
        // A key removed (or made a worker's) since this connection's handshake.
        if let refusal = keyRefusal(key, at: .clients) { return dropClient(client, because: refusal) }
        // Another key's connection holds the routing id of a client heard from.
        if let known = clientKeys[client], known.key != key {
            return refuseImpostor(client, at: .clients, holder: "a client", registeredKey: known.key, key: key)
        }
        if let key { noteClient(client, key: key) }
        // Requests only: a heartbeat asks for nothing to refuse, and comes every tick.
        let version = request.hasProtocolVersion ? request.protocolVersion : ProtocolVersions.unsaidByClients
        let isHeartbeat: Bool = { if case .heartbeat = request.body { return true } else { return false } }()
        if !isHeartbeat, let reason = ProtocolVersions.refusal(of: version, peer: "client") {
            metrics.refusedRequest(reason: "protocol_version")
            log(.error, "refused a request from a client with \(key.map { "key \($0)" } ?? "no key"): \(reason)")
            return refuse(client, id, reason, .protocolVersion)
        }
        handle(request, from: client, key: key, requester: .client(key: key), bytes: frames[1].count, arrivedAt: arrivedAt)
    }

    /// A client's request, from a connection (`receiveFromClient`) or from within the process
    /// (`LocalClients`, the HTTP API): `client` is where the answers go, `key` whose the request
    /// is (a CURVE key, an API token's principal, or nil), `requester` who may see what.
    func handle(_ request: Photocluster_V1_ClientToCoordinator, from client: Data, key: String?, requester: Requester, bytes: Int,
                arrivedAt: MonotonicInstant) {
        let id = request.requestID
        switch request.body {
        case .submit(let submit):
            accept(submit, bytes: bytes, from: client, key: key, requestID: id)
        case .status(let status):
            // A job that exists but is another client's is refused; one that does not is an empty answer, as ever.
            if jobs[status.jobID] != nil, !permitted(status.jobID, for: requester, client, id) { return }
            sendToClient(client, requestID: id, .status(statusReply(for: status.jobID, for: requester)))
        case .watch(let watch):
            guard permitted(watch.jobID, for: requester, client, id), let job = jobs[watch.jobID] else { return }
            subscribers[watch.jobID, default: JobSubscribers()].add(client, detail: watch.events, summary: watch.summary)
            noteEveryPhotoAudience(of: watch.jobID)
            // A renewal's answer is only looked at for an error: every photo's status, built
            // every few seconds for a job of a million photos, would cost the loop seconds.
            sendToClient(client, requestID: id, .status(statusReply(for: job.id, includePhotos: !watch.renewal, for: requester)))
            // A finished job's summary goes to this client only: the others have had it. A
            // renewal brings it only to a client not sent it yet (the coordinator restarted):
            // for a million photos it is a message of a hundred megabytes.
            if job.isFinished && (!watch.renewal || subscribers[job.id]?.toldTheEnd.contains(client) != true) {
                sendFinishedSummary(of: job, to: [client])
            }
        case .cancel(let cancel):
            guard permitted(cancel.jobID, for: requester, client, id) else { return }
            // No copy of the job outlives this check: one held while the job changes would copy its photos.
            guard let unknown = jobs[cancel.jobID].map({ job in Set(cancel.photoNames).subtracting(job.photos.map { job.name(of: $0.index) }) }) else {
                return refuse(client, id, noJob(cancel.jobID), .noSuchJob)
            }
            guard unknown.isEmpty else {
                return refuse(client, id, "job \(cancel.jobID) has no photo named \(unknown.sorted().map { "\"\($0)\"" }.joined(separator: ", "))")
            }
            tellCore(.cancel(job: cancel.jobID, names: Set(cancel.photoNames)))
            sendToClient(client, requestID: id, .ack(Photocluster_V1_Ack()))
        case .viewport(let request):
            guard permitted(request.jobID, for: requester, client, id) else { return }
            guard viewportInbox.admit(key ?? client.base64EncodedString(), now: arrivedAt) else {
                metrics.refusedRequest(reason: "limit")
                return refuse(client, id, "too many viewport changes: a client may make \(configuration.limits.viewportChangesPerSecond) a second "
                    + "(only the latest counts; cluster coordinator --max-viewport-changes-per-second); this one was not taken")
            }
            if let problem = applyViewport(request.viewport, to: request.jobID, arrivedAt: arrivedAt) { return refuse(client, id, problem.message) }
            // Answered once the turn's latest viewport of the job is applied.
            viewportReplies.append((client, id, requester, request.jobID))
        case .suspend(let request):
            guard permitted(request.jobID, for: requester, client, id) else { return }
            tellCore(.suspend(job: request.jobID, true, arrivedAt: arrivedAt))
            sendToClient(client, requestID: id, .ack(Photocluster_V1_Ack()))
        case .resume(let request):
            guard permitted(request.jobID, for: requester, client, id) else { return }
            tellCore(.suspend(job: request.jobID, false, arrivedAt: arrivedAt))
            sendToClient(client, requestID: id, .ack(Photocluster_V1_Ack()))
        case .heartbeat(let beat):
            sendToClient(client, requestID: id, .heartbeat(beat))
        case .trace(let request):
            guard permitted(request.jobID, for: requester, client, id) else { return }
            sendToClient(client, requestID: id, .trace(traceReply(for: request.jobID)))
        case .drain(let request):
            // An admin action: admin keys only (with CURVE), as for other clients' jobs.
            guard may(requester, accessJobOwnedBy: nil) else {
                metrics.refusedRequest(reason: "not_permitted")
                log(.warning, "refused to drain worker \(request.workerID) for \(requester.description(authorizedKeys)): not an admin key")
                return refuse(client, id, "draining a worker takes an admin key; this client's key is not one", .notPermitted)
            }
            guard workers[request.workerID] != nil else {
                return refuse(client, id, "no worker \(request.workerID) is connected (cluster status lists them)")
            }
            tellCore(.drainWorker(request.workerID, timeoutMs: request.timeoutMs))
            sendToClient(client, requestID: id, .ack(Photocluster_V1_Ack()))
        case .none:
            refuse(client, id, "empty request")
        }
    }

    /// Whether the job a client names exists and the client may see and act on it; when not,
    /// the request is refused with the reason.
    private func permitted(_ jobID: String, for requester: Requester, _ client: Data, _ requestID: UInt64) -> Bool {
        guard let owner = jobs[jobID].map({ $0.owner }) else {
            refuse(client, requestID, noJob(jobID), .noSuchJob)
            return false
        }
        guard may(requester, accessJobOwnedBy: owner) else {
            metrics.refusedRequest(reason: "not_permitted")
            log(.warning, "refused a request about job \(jobID) from \(requester.description(authorizedKeys)): the job is another client's", job: jobID)
            refuse(client, requestID, "job \(jobID) belongs to another client: only the client that submitted it and admin keys may see it or act on it", .notPermitted)
            return false
        }
        return true
    }

    func refuse(_ client: Data, _ requestID: UInt64, _ message: String, _ refusal: Photocluster_V1_Refusal = .unspecified) {
        var error = Photocluster_V1_ErrorReply()
        error.message = message
        error.refusal = refusal
        sendToClient(client, requestID: requestID, .error(error))
    }

    private func accept(_ submit: Photocluster_V1_SubmitJob, bytes: Int, from client: Data, key: String?, requestID: UInt64) {
        guard !submit.photos.isEmpty else { return refuse(client, requestID, "the job has no photos") }
        if let problem = configuration.limits.sizeProblem(photos: submit.photos.count, bytes: bytes) {
            return refuseLimit(client, requestID, problem, .tooLarge)
        }
        let open = jobs.values.filter { !$0.isFinished }
        let preparing = preparingDirectories.values
        // Without CURVE clients have no key: only the limit in all applies.
        let clientOpen = key.map { key in open.filter { $0.owner == key }.count + preparing.filter { $0.key == key }.count }
        if let problem = configuration.limits.openJobsProblem(ofClient: clientOpen, inAll: open.count + preparing.count) {
            return refuseLimit(client, requestID, problem, .tooManyJobs)
        }
        if let problem = filterProblem(in: submit) { return refuse(client, requestID, problem) }
        let jobID = "job-" + UUID().uuidString.prefix(8).lowercased()
        // Outputs the workers store themselves (S3, a shared directory) need no directory here.
        let place: OutputPlace?
        do {
            place = try OutputPlace(submit.outputPlace)
        } catch {
            return refuse(client, requestID, "\(error)")
        }
        // S3 outputs and inputs within the key's grants, checked before any worker touches S3.
        if let problem = storageProblem(submit, place: place, key: key) {
            metrics.refusedRequest(reason: "storage_grant")
            log(.warning, "refused a job from \(Requester.client(key: key).description(authorizedKeys)): \(problem)")
            return refuse(client, requestID, problem, .storageNotGranted)
        }
        if case .s3? = place { return createJob(submit, jobID: jobID, in: nil, place: place, from: client, key: key, requestID: requestID) }
        if case .shared(let path)? = place, !configuration.sharedRoots.contains(path) {
            // A shared directory this coordinator does not mount: the workers check it against their roots.
            return createJob(submit, jobID: jobID, in: nil, place: place, from: client, key: key, requestID: requestID)
        }
        // Opened (made, and checked against the root and its owner) on a writer thread: a file
        // system that stopped answering must not stop the loop (see `expireStuckWrites`).
        let token = UUID()
        preparingDirectories[token] = PreparingDirectory(client: client, requestID: requestID, key: key, submit: submit, since: .now, jobID: jobID, place: place)
        let root = outputRoot
        let claim = outputClaim(jobID: jobID, key: key, replace: submit.replaceOutputs)
        let sharedRoots = configuration.sharedRoots
        writers.submit { [weak self] in
            let opened = Result { () -> JobDirectory? in
                if case .shared(let path)? = place {
                    // The workers write the files; the coordinator claims the directory (and writes its index.json).
                    let directory = try OutputRoot.openUnconfined(try sharedRoots.directory(for: path).path)
                    try OutputOwnership.claim(directory, claim)
                    return nil
                }
                if let root { try OutputTreeTenancy.check(submit.outputDir, under: root, claim) }
                let directory = try Self.openOutputDirectory(submit.outputDir, root: root)
                try OutputOwnership.claim(directory, claim)
                return directory
            }
            self?.loop.post { self?.directoryOpened(token, opened) }
        }
    }

    /// Who a new job is, for the claim on its output directory.
    private func outputClaim(jobID: String, key: String?, replace: Bool) -> OutputClaim {
        let entry = key.flatMap { authorizedKeys?.entry(for: $0) }
        let roles = entry?.roles ?? []
        return OutputClaim(
            jobID: jobID, key: authorizedKeys == nil ? nil : key, label: entry?.label,
            role: roles.contains(.admin) ? "admin" : roles.contains(.client) ? "client" : nil,
            isAdmin: key.map { authorizedKeys?.isAdmin($0) ?? false } ?? false,
            replace: replace, secured: authorizedKeys != nil,
            openJobs: Set(jobs.values.lazy.filter { !$0.isFinished }.map(\.id)))
    }

    /// Back on the loop with the job's output directory open (nil: a shared directory, claimed),
    /// or why not. A job refused already (its directory took too long) is not taken now.
    private func directoryOpened(_ token: UUID, _ opened: Result<JobDirectory?, Error>) {
        guard let preparing = preparingDirectories.removeValue(forKey: token) else { return }
        let (client, requestID, key) = (preparing.client, preparing.requestID, preparing.key)
        let directory: JobDirectory?
        do {
            directory = try opened.get()
        } catch let problem as OutputDirectoryProblem {
            if problem.escapes {
                metrics.refusedRequest(reason: "output_root")
                log(.warning, "refused a job from \(Requester.client(key: key).description(authorizedKeys)): \(problem.message)")
            }
            return refuse(client, requestID, problem.message, problem.escapes ? .outputOutsideRoot : .unspecified)
        } catch let problem as OutputOwnershipProblem {
            metrics.refusedRequest(reason: problem.refusal == .outputNotOwned ? "output_owner" : "output_occupied")
            log(.warning, "refused a job from \(Requester.client(key: key).description(authorizedKeys)): \(problem.message)")
            return refuse(client, requestID, problem.message, problem.refusal)
        } catch {
            return refuse(client, requestID, "\(error)")
        }
        createJob(preparing.submit, jobID: preparing.jobID, in: directory, place: preparing.place, from: client, key: key, requestID: requestID)
    }

    /// `directory`: the job's open output directory, nil for a job whose workers store the
    /// outputs in `place`.
    private func createJob(_ submit: Photocluster_V1_SubmitJob, jobID: String, in directory: JobDirectory?, place: OutputPlace? = nil, from client: Data,
                           key: String?, requestID: UInt64) {
        let job = Job(id: jobID, submit: submit, outputDirectory: directory?.path ?? URL(fileURLWithPath: "/", isDirectory: true), place: place,
                      owner: authorizedKeys == nil ? nil : key, now: Date())
        // Durable before it is acknowledged: a restart must not lose an accepted job.
        if let journal {
            do {
                try journal.recordJob(job, submit: submit)
            } catch {
                noteJournalFailure(error)
                return refuse(client, requestID, "\(error); the coordinator cannot take jobs until its state directory is writable", .unavailable)
            }
        }
        if let directory { outputDirectories[jobID] = directory }
        subscribers[jobID] = JobSubscribers(client, detail: submit.events, summary: submit.summary)
        noteEveryPhotoAudience(of: jobID)
        var accepted = Photocluster_V1_JobAccepted()
        accepted.jobID = jobID
        accepted.total = UInt32(submit.photos.count)
        sendToClient(client, requestID: requestID, .accepted(accepted))
        let from = submit.label.isEmpty ? "a client" : submit.label
        log("job \(jobID) accepted: \(submit.photos.count) photos from \(from) (\(Requester.client(key: key).description(authorizedKeys))) → \(job.outputLocation)", job: jobID)
        publish(jobID, .phase(.preparation))
        tellCore(.jobOpened(job))
    }

    private func refuseLimit(_ client: Data, _ requestID: UInt64, _ problem: String, _ refusal: Photocluster_V1_Refusal) {
        metrics.refusedRequest(reason: "limit")
        log(.warning, "refused a job: \(problem)")
        refuse(client, requestID, problem, refusal)
    }

    /// Jobs (every one `requester` may see when `jobID` is empty), workers, rates and recent
    /// failures (of those jobs).
    func statusReply(for jobID: String, includePhotos: Bool? = nil, for requester: Requester = .operator) -> Photocluster_V1_StatusReply {
        var reply = Photocluster_V1_StatusReply()
        let selected = (jobID.isEmpty ? jobOrder : [jobID]).compactMap { jobs[$0] }.filter { may(requester, accessJobOwnedBy: $0.owner) }
        reply.jobs = selected.map { $0.summary(includePhotos: includePhotos ?? !jobID.isEmpty, at: Date(), workerID: { self.workerIDs[$0] ?? "" }) }
        let inFlight = photosInFlightByJob()
        for index in reply.jobs.indices {
            let id = reply.jobs[index].jobID
            reply.jobs[index].throughput = throughput(job: id)
            reply.jobs[index].inFlight = UInt32(inFlight[id] ?? 0)
            if let job = jobs[id], let reason = core.waitingReason(of: job) { reply.jobs[index].waiting = reason }
        }
        reply.droppedFrames = UInt64(droppedFrames)
        reply.coordinatorID = coordinatorID
        reply.uptimeSeconds = MonotonicInstant.now.seconds(since: startedMonotonic)
        reply.residentBytes = UInt64(ResidentMemory.bytes() ?? 0)
        if let leadership = leadershipStatus { reply.leadership = leadership }
        reply.throughput = throughput()
        reply.queued = UInt32(jobs.values.reduce(0) { $0 + ($1.isFinished ? 0 : $1.queuedCount) })
        reply.recentFailures = recentFailures.newestFirst.filter { failure in
            jobs[failure.jobID].map { may(requester, accessJobOwnedBy: $0.owner) } ?? (requester.isOperator || authorizedKeys == nil)
        }
        reply.workers = workers.values.sorted { $0.id < $1.id }.map { worker in
            var status = Photocluster_V1_WorkerStatus()
            status.workerID = worker.id
            status.host = worker.host
            status.concurrency = worker.concurrency
            status.inFlight = UInt32(worker.inFlight.count)
            status.completed = worker.completed
            status.throughput = throughput(worker: worker.id)
            status.stages = worker.stages
            status.memoryLimitBytes = worker.memory.limit
            status.memoryBudgetBytes = worker.memory.budget
            status.memoryInUseBytes = worker.memory.inUse
            status.photosWaitingForMemory = worker.memory.waiting
            status.residentBytes = worker.memory.resident
            status.state = worker.isDrained ? .drained : worker.draining != nil ? .draining : .working
            status.protocolVersion = worker.protocolVersion
            return status
        }
        return reply
    }
}
