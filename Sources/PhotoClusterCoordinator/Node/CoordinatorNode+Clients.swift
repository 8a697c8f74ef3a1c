import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Requests from clients: submit, status, watch, cancel.
extension CoordinatorNode {
    func receiveFromClient(_ frames: [Data]) {
        guard frames.count == 2, let request = Envelope.decode(Photocluster_V1_ClientToCoordinator.self, from: frames[1]) else {
            droppedFrames += 1
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
            guard let job = jobs[watch.jobID] else { return refuse(client, id, "no job \(watch.jobID)") }
            jobClients[watch.jobID, default: []].insert(client)
            sendToClient(client, requestID: id, .status(statusReply(for: job.id)))
            if job.isFinished {
                publish(job.id, .finished(job.summary(includePhotos: true)))
            }
        case .cancel(let cancel):
            guard jobs[cancel.jobID] != nil else { return refuse(client, id, "no job \(cancel.jobID)") }
            cancelPhotos(of: cancel.jobID, names: Set(cancel.photoNames))
            sendToClient(client, requestID: id, .ack(Photocluster_V1_Ack()))
        case .heartbeat(let beat):
            sendToClient(client, requestID: id, .heartbeat(beat))
        case .viewport, .suspend, .resume:
            refuse(client, id, "this coordinator does not support viewport control yet")
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
        let directory = URL(fileURLWithPath: submit.outputDir, isDirectory: true)
        do {
            try OutputWriter.prepareDirectory(directory)
        } catch {
            return refuse(client, requestID, "\(error)")
        }
        let jobID = "job-" + UUID().uuidString.prefix(8).lowercased()
        jobs[jobID] = Job(id: jobID, submit: submit, outputDirectory: directory)
        jobOrder.append(jobID)
        jobClients[jobID] = [client]
        var accepted = Photocluster_V1_JobAccepted()
        accepted.jobID = jobID
        accepted.total = UInt32(submit.photos.count)
        sendToClient(client, requestID: requestID, .accepted(accepted))
        log("job \(jobID) accepted: \(submit.photos.count) photos from \(submit.label.isEmpty ? "a client" : submit.label) → \(directory.path)")
        publish(jobID, .phase(.preparation))
        jobs[jobID]?.enter(.inProgress)
        publish(jobID, .phase(.inProgress))
        capabilitiesChanged = true
        dispatch()
    }

    /// Cancels photos by name (every photo when `names` is empty): queued ones at once, in-flight
    /// ones on the workers that hold them.
    func cancelPhotos(of jobID: String, names: Set<String>) {
        guard let job = jobs[jobID], !job.isFinished else { return }
        var byWorker: [String: [UInt32]] = [:]
        for photo in job.photos where !photo.state.isTerminal && (names.isEmpty || names.contains(photo.name)) {
            if let worker = photo.worker {
                byWorker[worker, default: []].append(photo.index)
                workers[worker]?.inFlight.remove(PhotoRef(job: jobID, index: photo.index))
            }
            jobs[jobID]?.markCancelled(photo.index, reason: "cancelled by the client")
            photoFinished(jobID, photo.index)
        }
        for (worker, indices) in byWorker {
            var cancel = Photocluster_V1_CancelPhotos()
            cancel.jobID = jobID
            cancel.photoIndices = indices
            sendToWorker(worker, .cancel(cancel))
        }
    }

    func statusReply(for jobID: String) -> Photocluster_V1_StatusReply {
        var reply = Photocluster_V1_StatusReply()
        let selected = jobID.isEmpty ? jobOrder : [jobID]
        reply.jobs = selected.compactMap { jobs[$0]?.summary(includePhotos: !jobID.isEmpty) }
        reply.workers = workers.values.sorted { $0.id < $1.id }.map { worker in
            var status = Photocluster_V1_WorkerStatus()
            status.workerID = worker.id
            status.host = worker.host
            status.concurrency = worker.concurrency
            status.inFlight = UInt32(worker.inFlight.count)
            status.completed = worker.completed
            return status
        }
        return reply
    }
}
