import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Requests from clients: submit, status, watch, cancel.
extension CoordinatorNode {
    /// `arrivedAt`: when the loop read the request, the start of a control change's clock.
    func receiveFromClient(_ frames: [Data], arrivedAt: MonotonicInstant = .now) {
        guard frames.count == 2, let request = Envelope.decode(Photocluster_V1_ClientToCoordinator.self, from: frames[1]) else {
            droppedFrames += 1
            metrics.droppedFrame()
            return
        }
        let client = frames[0]
        let id = request.requestID
        switch request.body {
        case .submit(let submit):
            accept(submit, from: client, requestID: id)
        case .status(let status):
            sendToClient(client, requestID: id, .status(statusReply(for: status.jobID)))
        case .watch(let watch):
            guard let job = jobs[watch.jobID] else { return refuse(client, id, noJob(watch.jobID)) }
            subscribers[watch.jobID, default: JobSubscribers()].add(client, detail: watch.events)
            sendToClient(client, requestID: id, .status(statusReply(for: job.id)))
            // A finished job's summary goes to this client only: the others have had it.
            if job.isFinished {
                sendToClient(client, .event(.with { $0.jobID = job.id; $0.body = .finished(job.summary(includePhotos: true)) }))
            }
        case .cancel(let cancel):
            // No copy of the job outlives this check: one held while the job changes would copy its photos.
            guard let unknown = jobs[cancel.jobID].map({ job in Set(cancel.photoNames).subtracting(job.photos.map(\.name)) }) else {
                return refuse(client, id, noJob(cancel.jobID))
            }
            guard unknown.isEmpty else {
                return refuse(client, id, "job \(cancel.jobID) has no photo named \(unknown.sorted().map { "\"\($0)\"" }.joined(separator: ", "))")
            }
            if cancel.photoNames.isEmpty { jobs[cancel.jobID]?.cancelledWhole = true }
            cancelPhotos(of: cancel.jobID, names: Set(cancel.photoNames))
            sendToClient(client, requestID: id, .ack(Photocluster_V1_Ack()))
        case .viewport(let request):
            if let problem = applyViewport(request.viewport, to: request.jobID, arrivedAt: arrivedAt) { return refuse(client, id, problem.message) }
            sendToClient(client, requestID: id, .status(statusReply(for: request.jobID, includePhotos: false)))
        case .suspend(let request):
            guard jobs[request.jobID] != nil else { return refuse(client, id, noJob(request.jobID)) }
            setSuspendedByClient(request.jobID, true, arrivedAt: arrivedAt)
            sendToClient(client, requestID: id, .ack(Photocluster_V1_Ack()))
        case .resume(let request):
            guard jobs[request.jobID] != nil else { return refuse(client, id, noJob(request.jobID)) }
            setSuspendedByClient(request.jobID, false, arrivedAt: arrivedAt)
            sendToClient(client, requestID: id, .ack(Photocluster_V1_Ack()))
        case .heartbeat(let beat):
            sendToClient(client, requestID: id, .heartbeat(beat))
        case .none:
            refuse(client, id, "empty request")
        }
    }

    private func refuse(_ client: Data, _ requestID: UInt64, _ message: String) {
        var error = Photocluster_V1_ErrorReply()
        error.message = message
        sendToClient(client, requestID: requestID, .error(error))
    }

    private func accept(_ submit: Photocluster_V1_SubmitJob, from client: Data, requestID: UInt64) {
        guard !submit.photos.isEmpty else { return refuse(client, requestID, "the job has no photos") }
        guard submit.outputDir.hasPrefix("/") else {
            return refuse(client, requestID, "the output directory must be an absolute path, got \"\(submit.outputDir)\"")
        }
        if let problem = filterProblem(in: submit) { return refuse(client, requestID, problem) }
        let directory = URL(fileURLWithPath: submit.outputDir, isDirectory: true)
        do {
            try OutputWriter.prepareDirectory(directory)
        } catch {
            return refuse(client, requestID, "\(error)")
        }
        let jobID = "job-" + UUID().uuidString.prefix(8).lowercased()
        let job = Job(id: jobID, submit: submit, outputDirectory: directory)
        // Durable before it is acknowledged: a restart must not lose an accepted job.
        if let journal {
            do {
                try journal.recordJob(job, submit: submit)
            } catch {
                return refuse(client, requestID, "\(error); the coordinator cannot take jobs until its state directory is writable")
            }
        }
        jobs[jobID] = job
        jobOrder.append(jobID)
        subscribers[jobID] = JobSubscribers(client, detail: submit.events)
        var accepted = Photocluster_V1_JobAccepted()
        accepted.jobID = jobID
        accepted.total = UInt32(submit.photos.count)
        sendToClient(client, requestID: requestID, .accepted(accepted))
        log("job \(jobID) accepted: \(submit.photos.count) photos from \(submit.label.isEmpty ? "a client" : submit.label) → \(directory.path)", job: jobID)
        publish(jobID, .phase(.preparation))
        jobs[jobID]?.enter(.inProgress)
        journaling("job \(jobID)") { try $0.recordJobState(jobs[jobID]!) }
        publish(jobID, .phase(.inProgress))
        capabilitiesChanged = true
        dispatch()
    }

    func statusReply(for jobID: String, includePhotos: Bool? = nil) -> Photocluster_V1_StatusReply {
        var reply = Photocluster_V1_StatusReply()
        let selected = jobID.isEmpty ? jobOrder : [jobID]
        reply.jobs = selected.compactMap { jobs[$0]?.summary(includePhotos: includePhotos ?? !jobID.isEmpty) }
        let inFlight = photosInFlightByJob()
        for index in reply.jobs.indices {
            let id = reply.jobs[index].jobID
            reply.jobs[index].throughput = throughput(job: id)
            reply.jobs[index].inFlight = UInt32(inFlight[id] ?? 0)
        }
        reply.droppedFrames = UInt64(droppedFrames)
        reply.coordinatorID = coordinatorID
        reply.uptimeSeconds = MonotonicInstant.now.seconds(since: startedMonotonic)
        reply.throughput = throughput()
        reply.queued = UInt32(jobs.values.reduce(0) { $0 + ($1.isFinished ? 0 : $1.queuedCount) })
        reply.recentFailures = recentFailures.newestFirst
        reply.workers = workers.values.sorted { $0.id < $1.id }.map { worker in
            var status = Photocluster_V1_WorkerStatus()
            status.workerID = worker.id
            status.host = worker.host
            status.concurrency = worker.concurrency
            status.inFlight = UInt32(worker.inFlight.count)
            status.completed = worker.completed
            status.throughput = throughput(worker: worker.id)
            status.stages = worker.stages
            return status
        }
        return reply
    }
}
