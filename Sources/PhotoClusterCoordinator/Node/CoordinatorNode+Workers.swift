import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// Messages from workers, and what becomes of their photos.
extension CoordinatorNode {
    func receiveFromWorker(_ frames: [Data]) {
        guard frames.count == 2, let id = String(data: frames[0], encoding: .utf8),
            let message = Envelope.decode(Photocluster_V1_WorkerToCoordinator.self, from: frames[1])
        else {
            droppedFrames += 1
            return
        }
        if case .hello(let hello) = message.body {
            register(id, hello)
            return
        }
        guard workers[id] != nil else {
            // A worker we do not know (it or we restarted): ask it to introduce itself.
            sendToWorker(id, .pleaseRegister(Photocluster_V1_PleaseRegister()))
            return
        }
        workers[id]?.lastSeen = Date()
        switch message.body {
        case .credit(let credit):
            workers[id]?.credits += Int(credit.grant)
            dispatch()
        case .progress(let progress):
            let state: PhotoState? = progress.stage == .download ? .downloaded : progress.stage == .filter ? .filtered : nil
            if let state, holds(id, progress.jobID, progress.photoIndex) {
                jobs[progress.jobID]?.markStage(progress.photoIndex, state)
            }
        case .result(let result):
            photoSucceeded(result, from: id)
        case .failure(let failure):
            photoFailed(failure, from: id)
        case .cancelled(let cancelled):
            photoCancelled(cancelled, from: id)
        case .goodbye:
            loseWorker(id, reason: "it left")
        case .heartbeat, .ack, .hello, .none:
            break
        }
    }

    private func register(_ id: String, _ hello: Photocluster_V1_WorkerHello) {
        if workers[id] != nil {
            // Same identity again: it reconnected or restarted. What it held goes back to the
            // queue, and it is told to drop its copies so nothing runs twice on purpose.
            let held = workers[id]!.inFlight
            loseWorker(id, reason: "it registered again")
            var drop = Photocluster_V1_DropStaleWork()
            drop.photos = held.map { ref in
                var photo = Photocluster_V1_DropStaleWork.PhotoRef()
                photo.jobID = ref.job
                photo.photoIndex = ref.index
                return photo
            }
            if !drop.photos.isEmpty { sendToWorker(id, .dropStale(drop)) }
        }
        workers[id] = WorkerRecord(
            id: id, host: hello.host, concurrency: hello.concurrency,
            filters: Set(hello.filters.map(\.name)), lastSeen: Date())
        var welcome = Photocluster_V1_Welcome()
        welcome.coordinatorID = coordinatorID
        welcome.heartbeatIntervalMs = UInt32(configuration.heartbeatInterval * 1000)
        welcome.heartbeatLiveness = UInt32(configuration.heartbeatLiveness)
        sendToWorker(id, .welcome(welcome))
        log("worker \(id) joined from \(hello.host) (concurrency \(hello.concurrency), filters: \(hello.filters.map(\.name).sorted().joined(separator: ", ")))")
        capabilitiesChanged = true
    }

    /// Removes a worker and puts every photo it held back in the queue.
    func loseWorker(_ id: String, reason: String) {
        guard let worker = workers.removeValue(forKey: id) else { return }
        for ref in worker.inFlight where jobs[ref.job]?.photo(ref.index)?.worker == id {
            jobs[ref.job]?.requeue(ref.index)
        }
        log("worker \(id) lost (\(reason)); \(worker.inFlight.count) photo(s) requeued")
        capabilitiesChanged = true
        dispatch()
    }

    private func holds(_ worker: String, _ job: String, _ index: UInt32) -> Bool {
        jobs[job]?.photo(index)?.worker == worker
    }

    private func release(_ worker: String, _ job: String, _ index: UInt32) {
        workers[worker]?.inFlight.remove(PhotoRef(job: job, index: index))
    }

    private func photoSucceeded(_ result: Photocluster_V1_PhotoResult, from worker: String) {
        release(worker, result.jobID, result.photoIndex)
        // Results are idempotent: a photo already finished (say, after a requeue) is not written twice.
        guard let job = jobs[result.jobID], let photo = job.photo(result.photoIndex), !photo.state.isTerminal else { return }
        workers[worker]?.completed += 1
        let fileExtension = result.format == .png ? "png" : "jpg"
        let destination = job.outputDirectory.appendingPathComponent(OutputNaming.fileName(stem: photo.stem, format: fileExtension))
        do {
            try OutputWriter.write(result.encoded, to: destination, tag: "\(job.id)-\(result.attempt)")
            jobs[result.jobID]?.markDone(result.photoIndex, path: destination.path, width: result.width, height: result.height)
        } catch {
            jobs[result.jobID]?.markFailed(result.photoIndex, stage: "write", reason: "\(error)")
        }
        photoFinished(result.jobID, result.photoIndex)
    }

    private func photoFailed(_ failure: Photocluster_V1_PhotoFailure, from worker: String) {
        release(worker, failure.jobID, failure.photoIndex)
        guard holds(worker, failure.jobID, failure.photoIndex), let photo = jobs[failure.jobID]?.photo(failure.photoIndex) else { return }
        if failure.transient && photo.attempts < configuration.maxAttempts {
            let backoff = configuration.retryBackoff * pow(2, Double(photo.attempts - 1))
            jobs[failure.jobID]?.noteFailureReason(failure.photoIndex, stage: failure.stageName, reason: failure.reason)
            jobs[failure.jobID]?.scheduleRetry(failure.photoIndex, after: min(backoff, 30))
            return
        }
        let reason = photo.attempts > 1 ? "\(failure.reason) (after \(photo.attempts) attempts)" : failure.reason
        jobs[failure.jobID]?.markFailed(failure.photoIndex, stage: failure.stageName, reason: reason)
        photoFinished(failure.jobID, failure.photoIndex)
    }

    private func photoCancelled(_ cancelled: Photocluster_V1_PhotoCancelled, from worker: String) {
        release(worker, cancelled.jobID, cancelled.photoIndex)
        guard holds(worker, cancelled.jobID, cancelled.photoIndex) else { return }
        // The worker gave it up without being asked (it is shutting down): run it elsewhere.
        jobs[cancelled.jobID]?.requeue(cancelled.photoIndex)
        dispatch()
    }

    /// A photo reached a terminal state: tell the clients, and finish the job when it was the last.
    func photoFinished(_ jobID: String, _ index: UInt32) {
        guard let job = jobs[jobID], let photo = job.photo(index) else { return }
        publish(jobID, .photo(photo.status()))
        publish(jobID, .progress(job.progress))
        if job.allTerminal && !job.isFinished { finish(jobID) }
    }

    func finish(_ jobID: String) {
        jobs[jobID]?.enter(.willFinish)
        publish(jobID, .phase(.willFinish))
        let cancelled = jobs[jobID]?.photos.contains { $0.state == .cancelled } ?? false
        jobs[jobID]?.enter(cancelled ? .cancelled : .didFinish)
        guard let job = jobs[jobID] else { return }
        let p = job.progress
        log("job \(jobID) finished: \(p.succeeded) ok, \(p.failed) failed, \(p.cancelled) cancelled in \(String(format: "%.2f", job.elapsed)) s")
        publish(jobID, .phase(job.phase))
        publish(jobID, .finished(job.summary(includePhotos: true)))
    }
}
