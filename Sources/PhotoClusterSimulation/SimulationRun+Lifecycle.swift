import Foundation
import PhotoClusterCore
import PhotoClusterScheduling

/// A job's end as the leader's shell carries it out in the simulated world: the index written
/// on the writer threads (now and then past the write timeout, as on a hung mount), the end and
/// the forgetting journaled. What the core decides about a job's life is checked as it acts.
extension SimulationRun {
    /// `.writeIndex`: the writer threads answer in milliseconds, or (a stuck file system) after
    /// the write timeout.
    package func startIndexWrite(_ jobID: String, in slot: Int) {
        let coordinator = coordinators[slot]
        coordinator.indexRequestedAt[jobID] = time
        let hangs = random.chance(0.02)
        let delay = hangs ? random.millis(6000...9000) : random.millis(1...20)
        agenda.schedule(.indexWritten(jobID, coordinator: coordinator.incarnation), at: time + delay)
    }

    /// `.jobFinished`: a job ends only once every photo of it is settled in the journal, and
    /// with its index written (or given up after the write timeout); then it is journaled.
    package func jobFinished(_ job: Job, problem: String?, in slot: Int) {
        let coordinator = coordinators[slot]
        let jobID = job.id
        // The journal refuses a deposed leader's write (it steps down): only an accepted end is
        // checked against what the journal holds (a later leader may have ended and forgotten it).
        guard journalWrite(by: slot, "the end of job \(jobID)") else { return }
        guard let journaled = journal[jobID] else { return fail("job \(jobID) ended, which the journal does not hold") }
        let settledInJournal = journaled.photos.count
        guard settledInJournal == Int(job.total) else {
            return fail("job \(jobID) ended with \(settledInJournal) of its \(job.total) photos settled in the journal")
        }
        if problem == nil, !coordinator.indexesWritten.contains(jobID) {
            return fail("job \(jobID) ended before its index was written")
        }
        if problem != nil {
            let waited = Double(time - (coordinator.indexRequestedAt[jobID] ?? time)) / 1e6
            guard waited >= writeTimeout else { return fail("job \(jobID) ended without its index after \(waited) s, before the write timeout (\(writeTimeout) s)") }
        }
        journal[jobID]?.noteState(of: job)
        journalFinishOrder.append(jobID)
    }

    /// `.jobsForgotten`: only finished jobs are forgotten (a client waits for an open job's end),
    /// and the journal forgets them too.
    package func jobsForgotten(_ forgotten: [Job], in slot: Int) {
        guard journalWrite(by: slot, "that \(forgotten.count) job(s) are forgotten") else { return }
        for job in forgotten {
            guard let journaled = journal[job.id], journaled.phase == .didFinish || journaled.phase == .cancelled else {
                return fail("job \(job.id) was forgotten before it ended (\(journal[job.id]?.phase ?? job.phase)): its client still waits for its end")
            }
        }
        let ids = Set(forgotten.map(\.id))
        for id in ids { journal.removeValue(forKey: id) }
        journalFinishOrder.removeAll { ids.contains($0) }
    }
}
