import Foundation
import PhotoClusterProto

/// The run's record: a digest of every event and action, and with `--trace` a line for each.
extension SimulationRun {
    func note(_ event: SimulationEvent) {
        let line: String
        switch event {
        case .toCoordinator(let connection, let worker, let message, _):
            line = "\(worker) → coordinator: \(Self.name(of: message.body))\(liveConnections.contains(connection) ? "" : " (lost with its connection)")"
        case .toWorker(let slot, let connection, let body):
            let lost = !liveConnections.contains(connection) || workers[slot].connection != connection
            line = "coordinator → \(workers[slot].id): \(Self.name(of: body))\(lost ? " (lost with its connection)" : "")"
        case .photoStep(let slot, _, let job, let index, let attempt): line = "\(workers[slot].id) works on photo \(index) of \(job) (attempt \(attempt))"
        case .workerHeartbeat(let slot, _): line = "\(workers[slot].id) beats"
        case .workerStart(let slot): line = "\(workers[slot].id) starts"
        case .workerResume(let slot, _): line = "\(workers[slot].id) resumes"
        case .workerDies(let slot, _): line = "\(workers[slot].id) dies of a poison photo"
        case .connectionTimeout(let slot, _): line = "\(workers[slot].id)'s connection times out"
        case .connectionClosed(let connection): line = "connection \(connection) closes"
        case .coordinatorHeartbeat: line = "coordinator heartbeat"
        case .retryTick: line = "retry tick"
        case .writeCheck: line = "write check"
        case .writeDone(let write): line = "write of photo \(write.result.photoIndex) of \(write.result.jobID) done"
        case .indexWritten(let job): line = "index of \(job) written"
        case .fault: line = "fault"
        case .heal: line = "heal"
        }
        record(String(format: "%10.6f ", seconds) + line)
    }

    func noteAction(_ action: CoordinatorAction) {
        let line: String
        switch action {
        case .sendToWorker(let id, let body): line = "send \(Self.name(of: body)) to \(id)"
        case .sendGraphs(let id, let batch, let sequence):
            line = "send graphs #\(sequence) to \(id): " + batch.sent.map { "\($0.ref.job)/\($0.ref.index)@\($0.attempt)" }.joined(separator: " ")
        case .photosSettled(let job, let photos): line = "settled \(job): " + photos.map { "\($0.photo.index) \($0.photo.state)" }.joined(separator: ", ")
        case .writeResult(let result, let worker, _, let targets): line = "write \(result.jobID)/\(targets.map(\.index)) from \(worker)"
        case .journalLosses(let job, let photo, let losses): line = "journal losses of \(job)/\(photo): \(losses?.count ?? 0)"
        case .journalJobState(let job): line = "journal \(job)"
        case .stageReported(let progress, let worker, _): line = "stage \(progress.stage) of \(progress.jobID)/\(progress.photoIndex) on \(worker)"
        case .spansReported(_, let worker): line = "spans from \(worker)"
        case .rejected(let worker, _, let what, let reason, _, let job, let photo): line = "rejected \(what) from \(worker) (\(reason)) \(job ?? "")/\(photo ?? 0)"
        case .workersChanged: line = "workers changed"
        case .count(let counter): line = "count \(counter)"
        case .log(_, let message, _, _, _): line = "log: \(message)"
        }
        record("           → " + line)
    }

    private func record(_ line: String) {
        // FNV-1a over the line: the run's digest.
        for byte in line.utf8 {
            digest ^= UInt64(byte)
            digest &*= 0x100_0000_01B3
        }
        if options.trace { trace.append(line) }
    }

    static func name(of body: Photocluster_V1_WorkerToCoordinator.OneOf_Body?) -> String {
        switch body {
        case .hello(let hello): return "hello (\(hello.incarnation), holding \(hello.inFlight.count))"
        case .credit(let credit): return "credit \(credit.grant)"
        case .progress(let progress): return "progress of \(progress.jobID)/\(progress.photoIndex)@\(progress.attempt)"
        case .reports(let reports):
            return "reports [" + reports.reports.map { report -> String in
                switch report.body {
                case .result(let result): return "result \(result.jobID)/\(result.photoIndex)@\(result.attempt)"
                case .failure(let failure): return "failure \(failure.jobID)/\(failure.photoIndex)@\(failure.attempt)"
                default: return "other"
                }
            }.joined(separator: ", ") + "] credit \(reports.credit)"
        case .heartbeat(let beat): return "heartbeat (sequence \(beat.assignSequence), holding \(beat.held.count))"
        case .ack(let ack): return "ack \(ack.jobID) epoch \(ack.epoch)"
        case .goodbye: return "goodbye"
        default: return "other"
        }
    }

    static func name(of body: Photocluster_V1_CoordinatorToWorker.OneOf_Body?) -> String {
        switch body {
        case .welcome: return "welcome"
        case .assignBatch(let batch): return "graphs #\(batch.sequence): " + batch.graphs.map { "\($0.jobID)/\($0.photoIndex)@\($0.attempt)" }.joined(separator: " ")
        case .cancel(let cancel): return "cancel \(cancel.jobID) epoch \(cancel.epoch) \(cancel.photoIndices)"
        case .control(let control): return "control \(control.jobID) epoch \(control.epoch)\(control.suspended ? " suspended" : "") cancel \(control.cancel)"
        case .dropStale(let drop): return "drop \(drop.photos.map { "\($0.jobID)/\($0.photoIndex)" })"
        case .jobClosed(let closed): return "job \(closed.jobID) closed"
        case .pleaseRegister: return "please register"
        case .heartbeat(let beat): return "heartbeat (sequence \(beat.assignSequence))"
        default: return "other"
        }
    }
}
