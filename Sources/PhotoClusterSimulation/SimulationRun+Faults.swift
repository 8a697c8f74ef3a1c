import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterScheduling

/// The faults a run injects until it heals, and the clients' requests.
extension SimulationRun {
    package func injectFault() {
        let roll = Int.random(in: 0..<100, using: &random)
        // Clients' requests fail while no leader runs.
        guard core != nil || roll < 40 else { return }
        let slot = Int.random(in: 0..<workers.count, using: &random)
        switch roll {
        case 0..<15:
            guard workers[slot].process != .dead else { return }
            kill(slot)
            // Some come back under another id (a new pod), the rest under their own.
            if random.chance(0.3) { workers[slot].id = "w\(slot)-\(workers[slot].incarnation + 1)" }
        case 15..<27:
            guard workers[slot].process == .running else { return }
            let until = time + random.millis(300...6000)
            workers[slot].process = .paused(until: until)
            tally.paused += 1
            if until - time > 3_000_000 {
                agenda.schedule(.connectionTimeout(slot: slot, connection: workers[slot].connection), at: time + 3_000_000)
            }
            agenda.schedule(.workerResume(slot: slot, incarnation: workers[slot].incarnation), at: until)
        case 27..<35:
            // The link breaks and comes back: what was on it is lost, neither side is told.
            guard workers[slot].process == .running else { return }
            liveConnections.remove(workers[slot].connection)
            reconnect(slot)
            tally.cutOff += 1
        case 35..<40:
            // SIGTERM: every other incarnation drains first (the default, --drain-timeout);
            // the rest leave at once (--drain-timeout 0).
            guard workers[slot].process == .running, !workers[slot].draining else { return }
            if workers[slot].incarnation % 2 == 0 { drain(slot) } else { leave(slot) }
        case 40..<70:
            moveViewport()
        case 70..<80:
            guard let job = openJob() else { return }
            tellLeader(.suspend(job: job.id, !job.suspendedByClient, arrivedAt: now))
        case 80..<90:
            guard let job = openJob(), job.total > 0 else { return }
            let names = (0..<Int.random(in: 1...2, using: &random)).map { _ in job.name(of: UInt32.random(in: 0..<UInt32(job.total), using: &random)) }
            tellLeader(.cancel(job: job.id, names: Set(names)))
        case 90..<92:
            guard let job = openJob() else { return }
            tellLeader(.cancel(job: job.id, names: []))
        case 92..<95:
            leadershipFault()
        default:
            if jobIDs.count < 6 { submitJob() }
        }
        tellLeader(.turnEnded)
    }

    private func openJob() -> Job? {
        let open = jobIDs.compactMap { core?.jobs[$0] }.filter { !$0.isFinished }
        return open.randomElement(using: &random)
    }

    private func moveViewport() {
        guard let job = openJob(), job.viewportMode else { return }
        let start = Int.random(in: 0..<job.total, using: &random)
        let end = min(job.total - 1, start + Int.random(in: 0...8, using: &random))
        let viewport = Viewport(visible: start...end, prefetch: Int.random(in: 0...6, using: &random), scrolling: random.chance(0.2))
        tellLeader(.viewport(job: job.id, viewport.proto(epoch: 0), arrivedAt: now))
    }

    /// A job of 10 to 80 photos: some share a URL (one is computed, the rest copy it), some are
    /// broken, and one job in three holds a photo that kills any worker that runs it. It reaches
    /// the leader, if one runs: the leader journals it (through the fence) before accepting it.
    package func submitJob() {
        guard let slot = endpoint, core != nil else { return }
        let id = "job\(jobIDs.count + 1)"
        let count = Int.random(in: 10...80, using: &random)
        let poison = random.chance(0.33) ? Int.random(in: 0..<count, using: &random) : -1
        var submit = Photocluster_V1_SubmitJob()
        submit.photos = (0..<count).map { index in
            let url: String
            if index == poison {
                url = "sim://poison/\(id)/\(index)"
            } else if random.chance(0.05) {
                url = "sim://broken/\(id)/\(index)"
            } else if index > 0 && random.chance(0.1) {
                url = "sim://photo/\(id)/\(index - 1)"
            } else {
                url = "sim://photo/\(id)/\(index)"
            }
            return .with { $0.name = "p\(index)"; $0.url = url }
        }
        submit.viewportMode = random.chance(0.4)
        if submit.viewportMode { submit.viewport = .with { $0.visibleStart = 0; $0.visibleEnd = 4; $0.prefetch = 3 } }
        let job = Job(id: id, submit: submit, outputDirectory: URL(fileURLWithPath: "/simulated/\(id)"), now: Date(timeIntervalSince1970: seconds))
        // Journaled before it is accepted, as `Journal.recordJob` is.
        guard journalWrite(by: slot, "job \(id)") else { return }
        jobIDs.append(id)
        journal[id] = JournaledJob(id: id, submit: submit, outputDirectory: job.outputDirectory, createdAt: job.createdAt, phase: job.phase)
        journal[id]?.noteState(of: job)
        if Self.tellsEveryPhoto(of: id) { tellCore(.clientsHearEveryPhoto(job: id, true), in: slot) }
        tellCore(.jobOpened(job), in: slot)
        tellCore(.turnEnded, in: slot)
    }

    /// The faults stop: every worker runs again, and the clients let every job run to its end.
    package func heal() {
        healing = true
        for coordinator in coordinators { coordinator.plannedStop = nil }
        // The clients' requests wait for a leader to take them.
        guard core != nil else { return agenda.schedule(.heal, at: time + 500_000) }
        for slot in workers.indices {
            switch workers[slot].process {
            case .paused: resumeWorker(slot, workers[slot].incarnation)
            case .dead: agenda.schedule(.workerStart(slot: slot), at: time + random.millis(0...500))
            case .running: break
            }
        }
        clientsLetJobsRun()
    }

    /// Once healed, the clients resume every job and widen every viewport to the whole job; they
    /// ask again of each new leader (the journal may not hold what they asked of the last).
    package func clientsLetJobsRun() {
        guard let core else { return }
        for job in jobIDs.compactMap({ core.jobs[$0] }) where !job.isFinished {
            if job.suspendedByClient { tellLeader(.suspend(job: job.id, false, arrivedAt: now)) }
            if job.viewportMode || job.viewport.scrolling {
                tellLeader(.viewport(job: job.id, Viewport(visible: 0...(job.total - 1), prefetch: 0, scrolling: false).proto(epoch: 0), arrivedAt: now))
            }
        }
        tellLeader(.turnEnded)
    }

    package func unfinishedJobs() -> String {
        guard let core else { return "no leader runs" }
        return jobIDs.compactMap { core.jobs[$0] }.filter { !$0.isFinished }.map { job in
            let waiting = job.photos.filter { !$0.isSettled || $0.parked }.prefix(5).map { photo in
                "\(photo.index) \(photo.state)\(photo.parked ? " parked" : "")\(job.isSuspect(photo.index) ? " suspect" : "")\(job.delayedIndices.contains(photo.index) ? " waiting to retry" : "")\(job.waitsForLeader(photo) ? " waiting for its leader" : "")\(job.planner.wants(Int(photo.index)) ? "" : " out of view")\(photo.isInFlight ? " on \(core.workerIDs[photo.worker] ?? "a lost worker")" : "")"
            }
            return "\(job.id) (\(job.progress.done)/\(job.total) settled; waiting: \(waiting.joined(separator: ", ")))"
        }.joined(separator: "; ") + "; workers: " + core.workers.values.map { worker in
            "\(worker.id) credit \(worker.credits) holding \(worker.inFlight.count)\(worker.unreachable ? " unreachable" : "")"
        }.joined(separator: ", ") + (core.reservedForSuspects.map { ", \($0) kept for suspects" } ?? "")
    }

    package func summary() -> String {
        var states: [PhotoState: Int] = [:]
        for job in jobIDs.compactMap({ core?.jobs[$0] }) {
            for photo in job.photos { states[photo.state, default: 0] += 1 }
        }
        return "\(jobIDs.count) jobs: \(states[.done] ?? 0) done, \(states[.failed] ?? 0) failed, \(states[.cancelled] ?? 0) cancelled; "
            + "workers killed \(tally.killed), stopped \(tally.paused), cut off \(tally.cutOff), drained \(tally.drained); coordinator killed \(tally.coordinatorKilled); "
            + "\(tally.forged) forged results; \(registeredAgain.values.reduce(0, +)) hellos from a registered process; leadership: \(leadership)"
    }
}
