import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterProtocol
import PhotoClusterScheduling

/// What the simulated workers do with what reaches them, and with their own time. What they
/// say, and when, is their `WorkerSession`'s to decide; this is the engine and the socket.
extension SimulationRun {
    package func startWorker(_ slot: Int) {
        guard workers[slot].process == .dead else { return }
        workers[slot].start(connection: openConnection())
        sendHello(slot)
        agenda.schedule(.workerHeartbeat(slot: slot, incarnation: workers[slot].incarnation), at: time + random.millis(300...1000))
    }

    /// The hello the session decides (with its credit, and whether the worker drains), from what
    /// the worker holds.
    private func sendHello(_ slot: Int) {
        let worker = workers[slot]
        let introduction = Photocluster_V1_WorkerHello.with {
            $0.workerID = worker.id
            $0.host = "simulated"
            $0.concurrency = UInt32(worker.concurrency)
            $0.incarnation = worker.incarnationName
        }
        let messages = workers[slot].session.hello(
            introduction, holding: worker.heldRefs, heldGraphs: worker.held.count, draining: worker.draining ? Self.draining : nil, at: now)
        for message in messages {
            guard case .credit = message, options.plantedBug == .workerGrantsHeldSlots else {
                say(message, from: slot)
                continue
            }
            say(.credit(.with { $0.grant = UInt32(worker.window) }), from: slot)
        }
    }

    /// What a draining worker says: its drain timeout, 2 s here.
    private static let draining = Photocluster_V1_WorkerDraining.with { $0.timeoutMs = 2000 }

    /// Sends what a worker says, keeping the account of the credit it grants: a hello starts it
    /// again, each grant adds to it (each graph that reaches the worker takes from it, in
    /// `deliver`), and each grant and heartbeat is checked as it leaves (`checkCredit`).
    private func say(_ body: Photocluster_V1_WorkerToCoordinator.OneOf_Body, from slot: Int, photos: [Data] = []) {
        send(body, from: slot, photos: photos)
        switch body {
        case .hello: workers[slot].creditOutstanding = 0
        case .credit(let credit): workers[slot].creditOutstanding += Int(credit.grant)
        case .reports(let reports): workers[slot].creditOutstanding += Int(reports.credit)
        default: break
        }
        checkCredit(of: workers[slot], saying: body)
    }

    /// The process dies (SIGKILL, the OOM killer, a poison photo): what was on its connection is lost.
    package func kill(_ slot: Int) {
        liveConnections.remove(workers[slot].connection)
        workers[slot].connection = 0
        workers[slot].process = .dead
        workers[slot].held = []
        tally.killed += 1
        agenda.schedule(.workerStart(slot: slot), at: time + (healing ? random.millis(200...1000) : random.millis(500...6000)))
    }

    package func resumeWorker(_ slot: Int, _ incarnation: Int) {
        guard workers[slot].incarnation == incarnation, case .paused = workers[slot].process else { return }
        workers[slot].process = .running
        if workers[slot].connection == 0 { reconnect(slot) }
        let inbox = workers[slot].inbox
        workers[slot].inbox = []
        for (connection, body) in inbox { deliver(body, to: slot, on: connection) }
    }

    package func deliver(_ body: Photocluster_V1_CoordinatorToWorker.OneOf_Body, to slot: Int, on connection: Int) {
        guard liveConnections.contains(connection), workers[slot].connection == connection else { return }
        switch workers[slot].process {
        case .dead: return
        case .paused:
            workers[slot].inbox.append((connection, body))
            return
        case .running: break
        }
        workers[slot].session.heard(at: now)
        var message = Photocluster_V1_CoordinatorToWorker()
        message.body = body
        // Graphs that end without running (cancelled, dropped, closed, sent under an older
        // viewport) are answered as the engine answers them: cancelled, a credit each.
        var ended: [SimulatedWorker.HeldPhoto] = []
        for command in workers[slot].session.receive([message]) {
            switch command {
            case .cancel(let job, let photos):
                ended += workers[slot].remove { $0.job == job && (photos?.contains($0.index) ?? true) }
            case .setSuspended(let job, let suspended):
                if suspended { workers[slot].suspendedJobs.insert(job) } else { workers[slot].suspendedJobs.remove(job) }
            case .acknowledge(let job, let epoch):
                say(WorkerSession.acknowledgement(job: job, epoch: epoch), from: slot)
            case .start(let graph) where workers[slot].draining:
                workers[slot].creditOutstanding -= 1
                ended.append(.init(job: graph.jobID, index: graph.photoIndex, attempt: graph.attempt, epoch: graph.epoch, url: graph.url))
            case .start(let graph):
                workers[slot].creditOutstanding -= 1
                take(graph, slot)
            case .handBack(let graph):
                workers[slot].creditOutstanding -= 1
                ended.append(.init(job: graph.jobID, index: graph.photoIndex, attempt: graph.attempt, epoch: graph.epoch, url: graph.url))
            case .drop(let job, let photo):
                ended += workers[slot].remove { $0.job == job && $0.index == photo }
            case .sayHello:
                sendHello(slot)
            case .closeJobs(let open):
                ended += workers[slot].remove { !open.contains($0.job) }
            case .close(let job):
                ended += workers[slot].remove { $0.job == job }
            case .reprioritise, .wakeQueueThread, .registered:
                break
            case .refused:
                break  // simulated workers speak this build's protocol: never refused
            case .drain:
                break  // the simulation's coordinator never asks a worker to drain
            }
        }
        guard !ended.isEmpty else { return }
        var reports = Photocluster_V1_WorkerReports()
        reports.reports = ended.map { photo in
            .with { $0.cancelled = cancelled(photo) }
        }
        reports.credit = workers[slot].session.credit.returned(byEnded: ended.count)
        say(.reports(reports), from: slot)
    }

    private func take(_ graph: Photocluster_V1_PhotoGraph, _ slot: Int) {
        if let at = workers[slot].held.firstIndex(where: { $0.job == graph.jobID && $0.index == graph.photoIndex }) {
            workers[slot].held[at].attempt = graph.attempt
            workers[slot].held[at].epoch = graph.epoch
            workers[slot].held[at].progressed = false
        } else {
            workers[slot].held.append(.init(job: graph.jobID, index: graph.photoIndex, attempt: graph.attempt, epoch: graph.epoch, url: graph.url))
        }
        let incarnation = workers[slot].incarnation
        if graph.url.contains("poison") { agenda.schedule(.workerDies(slot: slot, incarnation: incarnation), at: time + random.millis(5...100)) }
        agenda.schedule(
            .photoStep(slot: slot, incarnation: incarnation, job: graph.jobID, index: graph.photoIndex, attempt: graph.attempt),
            at: time + random.millis(50...500))
    }

    /// A photo moves on: its download is reported, then it ends (done, or failed) in a batch of
    /// reports that grants the credit it frees.
    package func stepPhoto(_ slot: Int, _ incarnation: Int, _ job: String, _ index: UInt32, _ attempt: UInt32) {
        guard workers[slot].incarnation == incarnation else { return }
        let step = SimulationEvent.photoStep(slot: slot, incarnation: incarnation, job: job, index: index, attempt: attempt)
        switch workers[slot].process {
        case .dead: return
        case .paused(let until): return agenda.schedule(step, at: until + 1)
        case .running: break
        }
        guard let at = workers[slot].held.firstIndex(where: { $0.job == job && $0.index == index && $0.attempt == attempt }) else { return }
        if workers[slot].suspendedJobs.contains(job) { return agenda.schedule(step, at: time + 200_000) }
        let photo = workers[slot].held[at]
        guard photo.progressed else {
            workers[slot].held[at].progressed = true
            say(.progress(.with {
                $0.jobID = job
                $0.photoIndex = index
                $0.attempt = attempt
                $0.graphEpoch = photo.epoch
                $0.stage = .download
                $0.bytes = 1000
            }), from: slot)
            return agenda.schedule(step, at: time + random.millis(50...500))
        }
        workers[slot].held.remove(at: at)
        var reports = Photocluster_V1_WorkerReports()
        var photos: [Data] = []
        if photo.url.contains("broken") {
            reports.reports.append(.with { $0.failure = failure(photo, transient: false) })
        } else if random.chance(0.05) {
            reports.reports.append(.with { $0.failure = failure(photo, transient: true) })
        } else if let reason = workers[slot].session.refusal(ofResultBytes: 64) {
            reports.reports.append(.with { $0.failure = failure(photo, at: .encode, "result", reason: reason, transient: false) })
        } else {
            reports.reports.append(.with { $0.result = result(job: job, index: index, attempt: attempt, epoch: photo.epoch) })
            photos.append(Data(repeating: 1, count: 64))
        }
        // Now and then a worker claims a photo it was never sent: the coordinator must not believe it.
        if random.chance(0.01), let forged = jobIDs.randomElement(using: &random), let total = core?.jobs[forged]?.total {
            let index = UInt32.random(in: 0..<UInt32(total), using: &random)
            if !workers[slot].holds(forged, index) {
                reports.reports.append(.with { $0.result = result(job: forged, index: index, attempt: 1, epoch: 0) })
                photos.append(Data(repeating: 2, count: 64))
                tally.forged += 1
            }
        }
        reports.credit = workers[slot].session.credit.returned(byEnded: 1)
        say(.reports(reports), from: slot, photos: photos)
        if workers[slot].draining && workers[slot].held.isEmpty { leave(slot) }
    }

    /// SIGTERM with a drain: the worker says so, hands back the photos not started (their
    /// download not reported), takes nothing more, and leaves once the rest ended or at the
    /// drain timeout (2 s here).
    package func drain(_ slot: Int) {
        say(.draining(Self.draining), from: slot)
        workers[slot].draining = true
        tally.drained += 1
        let unstarted = workers[slot].remove { !$0.progressed }
        if !unstarted.isEmpty {
            var reports = Photocluster_V1_WorkerReports()
            reports.reports = unstarted.map { photo in
                .with { $0.cancelled = cancelled(photo) }
            }
            reports.credit = workers[slot].session.credit.returned(byEnded: unstarted.count)
            say(.reports(reports), from: slot)
        }
        if workers[slot].held.isEmpty { return leave(slot) }
        agenda.schedule(.drainTimeout(slot: slot, incarnation: workers[slot].incarnation), at: time + 2_000_000)
    }

    /// The drain timeout: what still runs is handed back with the goodbye.
    package func drainTimedOut(_ slot: Int, _ incarnation: Int) {
        guard workers[slot].incarnation == incarnation, workers[slot].draining else { return }
        switch workers[slot].process {
        case .dead: return
        case .paused(let until): return agenda.schedule(.drainTimeout(slot: slot, incarnation: incarnation), at: until + 1)
        case .running: leave(slot)
        }
    }

    /// SIGTERM's end: the worker says goodbye, handing back what it holds, and leaves; its
    /// connection closes a moment later, and a new process starts in its slot after a while.
    package func leave(_ slot: Int) {
        say(.goodbye(.with { $0.handedBack = workers[slot].heldRefs }), from: slot)
        agenda.schedule(.connectionClosed(workers[slot].connection), at: time + 100_000)
        workers[slot].process = .dead
        workers[slot].held = []
        workers[slot].connection = 0
        agenda.schedule(.workerStart(slot: slot), at: time + random.millis(500...3000))
    }

    private func result(job: String, index: UInt32, attempt: UInt32, epoch: UInt64) -> Photocluster_V1_PhotoResult {
        .with {
            $0.jobID = job
            $0.photoIndex = index
            $0.attempt = attempt
            $0.graphEpoch = epoch
            $0.format = .jpeg
            $0.width = 8
            $0.height = 8
            $0.photoInFrame = true
        }
    }

    private func cancelled(_ photo: SimulatedWorker.HeldPhoto) -> Photocluster_V1_PhotoCancelled {
        .with {
            $0.jobID = photo.job
            $0.photoIndex = photo.index
            $0.attempt = photo.attempt
            $0.graphEpoch = photo.epoch
        }
    }

    private func failure(_ photo: SimulatedWorker.HeldPhoto, transient: Bool) -> Photocluster_V1_PhotoFailure {
        let reason = transient ? "simulated: the download was cut short" : "simulated: not a photo"
        return failure(photo, at: .decode, "decode", reason: reason, transient: transient)
    }

    private func failure(
        _ photo: SimulatedWorker.HeldPhoto, at stage: Photocluster_V1_Stage, _ stageName: String, reason: String, transient: Bool
    ) -> Photocluster_V1_PhotoFailure {
        .with {
            $0.jobID = photo.job
            $0.photoIndex = photo.index
            $0.attempt = photo.attempt
            $0.graphEpoch = photo.epoch
            $0.stage = stage
            $0.stageName = stageName
            $0.reason = reason
            $0.transient = transient
        }
    }

    package func beat(_ slot: Int, _ incarnation: Int) {
        guard workers[slot].incarnation == incarnation else { return }
        let next = SimulationEvent.workerHeartbeat(slot: slot, incarnation: incarnation)
        switch workers[slot].process {
        case .dead: return
        case .paused(let until): return agenda.schedule(next, at: until + 2)
        case .running: break
        }
        let worker = workers[slot]
        say(.heartbeat(worker.session.heartbeat(holding: worker.heldRefs, heldGraphs: worker.held.count)), from: slot)
        if workers[slot].session.silence(at: now) != nil {
            reopenAfterSilence(slot)
            sendHello(slot)
        } else if workers[slot].session.helloUnanswered(at: now) {
            sendHello(slot)
        }
        agenda.schedule(next, at: time + Int64(worker.session.heartbeatInterval * 1e6))
    }

    /// As `WorkerNode` does once per liveness period of the coordinator's silence: it closes its
    /// socket (linger 0: what waited in it is dropped; what already left still arrives, then the
    /// connection closes) and connects afresh, under a new routing id.
    private func reopenAfterSilence(_ slot: Int) {
        let period = Int64(workers[slot].session.livenessPeriod * 1e6)
        guard workers[slot].lastReopened.map({ time - $0 >= period }) ?? true else { return }
        workers[slot].lastReopened = time
        workers[slot].unsent = []
        if workers[slot].connection != 0 { agenda.schedule(.connectionClosed(workers[slot].connection), at: time + 100_000) }
        reconnect(slot)
    }
}
