import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterScheduling

/// The run's record: a digest of every event and action, and with `--trace` a line for each.
/// The digest is made from numbers, not the lines: a run of ten thousand seeds makes no text.
extension SimulationRun {
    package func note(_ event: SimulationEvent) {
        mix(UInt64(bitPattern: time))
        mix(Self.tag(of: event))
        guard options.trace else { return }
        let line: String
        switch event {
        case .toCoordinator(let connection, let worker, let message, _):
            let to = coordinators.first { $0.incarnation == connectionOwner[connection] }?.name ?? "nobody"
            line = "\(worker) → \(to): \(Self.name(of: message.body))\(liveConnections.contains(connection) ? "" : " (lost with its connection)")"
        case .toWorker(let slot, let connection, let body):
            let lost = !liveConnections.contains(connection) || workers[slot].connection != connection
            let from = coordinators.first { $0.incarnation == connectionOwner[connection] }?.name ?? "coordinator"
            line = "\(from) → \(workers[slot].id): \(Self.name(of: body))\(lost ? " (lost with its connection)" : "")"
        case .photoStep(let slot, _, let job, let index, let attempt): line = "\(workers[slot].id) works on photo \(index) of \(job) (attempt \(attempt))"
        case .workerHeartbeat(let slot, _): line = "\(workers[slot].id) beats"
        case .workerStart(let slot): line = "\(workers[slot].id) starts"
        case .workerResume(let slot, _): line = "\(workers[slot].id) resumes"
        case .workerDies(let slot, _): line = "\(workers[slot].id) dies of a poison photo"
        case .drainTimeout(let slot, _): line = "\(workers[slot].id)'s drain timeout ends"
        case .connectionTimeout(let slot, _): line = "\(workers[slot].id)'s connection times out"
        case .connectionClosed(let connection): line = "connection \(connection) closes"
        case .coordinatorHeartbeat(let incarnation): line = "\(coordinatorName(incarnation)) heartbeat"
        case .retryTick(let incarnation): line = "\(coordinatorName(incarnation)) retry tick"
        case .writeCheck(let incarnation): line = "\(coordinatorName(incarnation)) write check"
        case .writeDone(let write, let incarnation): line = "\(coordinatorName(incarnation)): write of photo \(write.result.photoIndex) of \(write.result.jobID) done"
        case .indexWritten(let job, let incarnation): line = "\(coordinatorName(incarnation)): index of \(job) written"
        case .leaseTick(let incarnation): line = "\(coordinatorName(incarnation)) lease timer"
        case .leaseRequest(let incarnation, let renew, let token, let sentAt):
            line = "database: \(renew ? "renew (token \(token))" : "acquire") from \(coordinatorName(incarnation)), sent at \(String(format: "%.3f", sentAt)); lease row token \(leaseTable.token), expires \(String(format: "%.3f", leaseTable.expiresAt)), now \(String(format: "%.3f", databaseSeconds))"
        case .leaseAnswer(let incarnation, let renew, let grant, _):
            line = "\(coordinatorName(incarnation)): \(renew ? "renew" : "acquire") \(grant.map { "granted, token \($0.token)" } ?? "refused")"
        case .coordinatorResumes(let incarnation): line = "\(coordinatorName(incarnation)) continues"
        case .coordinatorStarts(let slot): line = "c\(slot) starts as a standby"
        case .fault: line = "fault"
        case .leaderFault: line = "leader fault"
        case .heal: line = "heal"
        }
        record(String(format: "%10.6f ", seconds) + line)
    }

    package func noteAction(_ action: CoordinatorAction) {
        digest(action)
        guard options.trace else { return }
        let line: String
        switch action {
        case .sendToWorker(let id, let body): line = "send \(Self.name(of: body)) to \(id)"
        case .sendGraphs(let id, let batch, let sequence):
            line = "send graphs #\(sequence) to \(id): " + batch.sent.map { "\($0.ref.job)/\($0.ref.index)@\($0.attempt)" }.joined(separator: " ")
        case .photosSettled(let job, let photos, _): line = "settled \(job): " + photos.map { "\($0.photo.index) \($0.photo.state)" }.joined(separator: ", ")
        case .writeResult(let result, let worker, _, let targets): line = "write \(result.jobID)/\(targets.map(\.index)) from \(worker)"
        case .removeOutputs(let write, let names): line = "remove \(write.result.jobID)/\(names)"
        case .jobPhase(let job, let phase): line = "\(job) is \(phase)"
        case .writeIndex(let job): line = "write the index of \(job)"
        case .jobFinished(let job, let problem): line = "\(job.id) ended\(problem.map { " without its index: \($0)" } ?? "")"
        case .jobsForgotten(let jobs): line = "forget \(jobs.map(\.id))"
        case .journalLosses(let job, let photo, let losses): line = "journal losses of \(job)/\(photo): \(losses?.count ?? 0)"
        case .journalJobState(let job): line = "journal \(job)"
        case .stageReported(let progress, let worker, _): line = "stage \(progress.stage) of \(progress.jobID)/\(progress.photoIndex) on \(worker)"
        case .spansReported(_, let worker): line = "spans from \(worker)"
        case .rejected(let worker, _, let what, let reason, _, let job, let photo): line = "rejected \(what) from \(worker) (\(reason)) \(job ?? "")/\(photo ?? 0)"
        case .refusedProtocol(let worker, _, _): line = "refused the protocol of \(worker)"
        case .workersChanged: line = "workers changed"
        case .count(let counter): line = "count \(counter)"
        case .log(_, let message, _, _, _): line = "log: \(message)"
        }
        record("           → " + line)
    }

    private func record(_ line: String) { trace.append(line) }

    /// A line of what the run did itself (a takeover, a stop), with `--trace`.
    package func noteRun(_ line: @autoclosure () -> String) {
        guard options.trace else { return }
        record("           * " + line())
    }

    /// FNV-1a, a number at a time.
    private func mix(_ value: UInt64) {
        digest ^= value
        digest &*= 0x100_0000_01B3
    }

    private func mix(_ text: String) {
        for byte in text.utf8 { mix(UInt64(byte)) }
    }

    private func digest(_ action: CoordinatorAction) {
        switch action {
        case .sendToWorker(let id, let body):
            mix(1)
            mix(id)
            mix(Self.tag(of: body))
        case .sendGraphs(let id, let batch, let sequence):
            mix(2)
            mix(id)
            mix(sequence)
            for (ref, attempt, _) in batch.sent {
                mix(ref.job)
                mix(UInt64(ref.index) << 32 | UInt64(attempt))
            }
        case .photosSettled(let job, let photos, _):
            mix(3)
            mix(job)
            for (photo, _) in photos { mix(UInt64(photo.index) << 8 | UInt64(PhotoState.allCases.firstIndex(of: photo.state) ?? 0)) }
        case .writeResult(let result, let worker, _, let targets):
            mix(4)
            mix(worker)
            mix(UInt64(result.photoIndex) << 32 | UInt64(targets.count))
        case .journalLosses(_, let photo, let losses): mix(5 | UInt64(photo) << 8 | UInt64(losses?.count ?? 0) << 40)
        case .journalJobState: mix(6)
        case .stageReported(let progress, _, _): mix(7 | UInt64(progress.photoIndex) << 8)
        case .spansReported: mix(8)
        case .rejected(let worker, _, _, _, _, _, let photo):
            mix(9 | UInt64(photo ?? 0) << 8)
            mix(worker)
        case .refusedProtocol(let worker, _, _):
            mix(13)
            mix(worker)
        case .removeOutputs(let write, let names):
            mix(14)
            mix(write.result.jobID)
            mix(UInt64(names.count))
        case .jobPhase(let job, let phase):
            mix(15 | UInt64(phase.rawValue) << 8)
            mix(job)
        case .writeIndex(let job):
            mix(16)
            mix(job)
        case .jobFinished(let job, let problem):
            mix(17 | (problem == nil ? 0 : 1 << 8))
            mix(job.id)
        case .jobsForgotten(let jobs):
            mix(18)
            for job in jobs { mix(job.id) }
        case .workersChanged: mix(10)
        case .count: mix(11)
        case .log: mix(12)
        }
    }

    private func coordinatorName(_ incarnation: Int) -> String {
        coordinators.first { $0.incarnation == incarnation }.map { "\($0.name)#\(incarnation)" } ?? "coordinator #\(incarnation)"
    }

    private static func tag(of event: SimulationEvent) -> UInt64 {
        switch event {
        case .toCoordinator(let connection, _, let message, _): return 1 | UInt64(connection) << 8 | tag(of: message.body) << 40
        case .toWorker(let slot, let connection, let body): return 2 | UInt64(slot) << 8 | UInt64(connection) << 16 | tag(of: body) << 40
        case .photoStep(let slot, _, _, let index, let attempt): return 3 | UInt64(slot) << 8 | UInt64(index) << 16 | UInt64(attempt) << 48
        case .workerHeartbeat(let slot, _): return 4 | UInt64(slot) << 8
        case .workerStart(let slot): return 5 | UInt64(slot) << 8
        case .workerResume(let slot, _): return 6 | UInt64(slot) << 8
        case .workerDies(let slot, _): return 7 | UInt64(slot) << 8
        case .drainTimeout(let slot, _): return 19 | UInt64(slot) << 8
        case .connectionTimeout(let slot, _): return 8 | UInt64(slot) << 8
        case .connectionClosed(let connection): return 9 | UInt64(connection) << 8
        case .coordinatorHeartbeat(let incarnation): return 10 | UInt64(incarnation) << 8
        case .retryTick(let incarnation): return 11 | UInt64(incarnation) << 8
        case .writeCheck(let incarnation): return 12 | UInt64(incarnation) << 8
        case .writeDone(let write, let incarnation): return 13 | UInt64(write.result.photoIndex) << 8 | UInt64(incarnation) << 40
        case .indexWritten(_, let incarnation): return 14 | UInt64(incarnation) << 8
        case .leaseTick(let incarnation): return 20 | UInt64(incarnation) << 8
        case .leaseRequest(let incarnation, let renew, let token, _): return 21 | UInt64(incarnation) << 8 | (renew ? 1 << 39 : 0) | token << 40
        case .leaseAnswer(let incarnation, let renew, let grant, _): return 22 | UInt64(incarnation) << 8 | (renew ? 1 << 39 : 0) | (grant?.token ?? 0) << 40
        case .coordinatorResumes(let incarnation): return 17 | UInt64(incarnation) << 8
        case .coordinatorStarts(let slot): return 18 | UInt64(slot) << 8
        case .fault: return 15
        case .leaderFault: return 23
        case .heal: return 16
        }
    }

    private static func tag(of body: Photocluster_V1_WorkerToCoordinator.OneOf_Body?) -> UInt64 {
        switch body {
        case .hello: return 1
        case .credit(let credit): return 2 | UInt64(credit.grant) << 8
        case .progress(let progress): return 3 | UInt64(progress.photoIndex) << 8
        case .reports(let reports): return 4 | UInt64(reports.reports.count) << 8 | UInt64(reports.credit) << 16
        case .heartbeat(let beat): return 5 | UInt64(beat.held.count) << 8
        case .ack(let ack): return 6 | ack.epoch << 8
        case .goodbye: return 7
        case .draining: return 9
        default: return 0
        }
    }

    private static func tag(of body: Photocluster_V1_CoordinatorToWorker.OneOf_Body?) -> UInt64 {
        switch body {
        case .welcome: return 1
        case .assignBatch(let batch): return 2 | batch.sequence << 8
        case .cancel(let cancel): return 3 | cancel.epoch << 8
        case .control(let control): return 4 | control.epoch << 8
        case .dropStale(let drop): return 5 | UInt64(drop.photos.count) << 8
        case .jobClosed: return 6
        case .pleaseRegister: return 7
        case .heartbeat(let beat): return 8 | beat.assignSequence << 8
        default: return 0
        }
    }

    package static func name(of body: Photocluster_V1_WorkerToCoordinator.OneOf_Body?) -> String {
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
        case .draining: return "draining"
        default: return "other"
        }
    }

    package static func name(of body: Photocluster_V1_CoordinatorToWorker.OneOf_Body?) -> String {
        switch body {
        case .welcome: return "welcome"
        case .assignBatch(let batch): return "graphs #\(batch.sequence): " + batch.graphs.map { "\($0.jobID)/\($0.photoIndex)@\($0.attempt)" }.joined(separator: " ")
        case .cancel(let cancel): return "cancel \(cancel.jobID) epoch \(cancel.epoch) \(cancel.photoIndices)"
        case .control(let control): return "control \(control.jobID) epoch \(control.epoch)\(control.suspended ? " suspended" : "") cancel \(control.cancel)"
        case .dropStale(let drop): return "drop \(drop.photos.map { "\($0.jobID)/\($0.photoIndex)" })"
        case .jobClosed(let closed): return "job \(closed.jobID) closed"
        case .pleaseRegister: return "please register"
        case .refused(let refused): return "refused: \(refused.reason)"
        case .heartbeat(let beat): return "heartbeat (sequence \(beat.assignSequence))"
        case .drain: return "drain"
        default: return "other"
        }
    }
}
