import Foundation
import PhotoClusterCore

/// The coordinator killed and started again: what was in memory is gone (the core, writes on
/// their way, messages on every connection), and the new one starts from its journal, as
/// `CoordinatorNode.start` does.
extension SimulationRun {
    package func killCoordinator() {
        coordinator.down = true
        coordinator.incarnation += 1
        tally.coordinatorKilled += 1
        // Every connection breaks with the coordinator's sockets: what was on them is lost.
        liveConnections.removeAll()
        for slot in workers.indices { workers[slot].connection = 0 }
        finishing = []
        agenda.schedule(.coordinatorStarts, at: time + random.millis(300...3000))
    }

    package func startCoordinator() {
        coordinator.down = false
        missingSince = [:]
        core = CoordinatorCore(settings: Self.settings, now: now)
        for id in jobIDs {
            guard let journaled = journal[id] else { continue }
            core.open(Job.restore(journaled, place: nil, now: Date(timeIntervalSince1970: 0)))
            // Their clients watch them again.
            if Self.tellsEveryPhoto(of: id) { tellCore(.clientsHearEveryPhoto(job: id, true)) }
        }
        // Workers that run connect again; a stopped one does when it resumes.
        for slot in workers.indices where workers[slot].process == .running { workers[slot].connection = openConnection() }
        // A job restored with every photo settled stopped between its last photo and its end.
        for id in jobIDs {
            guard let job = core.jobs[id], !job.isFinished, job.allSettled, finishing.insert(id).inserted else { continue }
            if !job.cancelledWhole { job.enter(.willFinish, at: Date(timeIntervalSince1970: 0)) }
            agenda.schedule(.indexWritten(id, coordinator: coordinator.incarnation), at: time + random.millis(1...20))
        }
    }
}
