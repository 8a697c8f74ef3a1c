import Foundation

/// A photo that was on a worker when the worker died (a crash, the OOM killer, a hard fault).
/// A photo lost once is a suspect: it waits outside the viewport queue, behind every photo that
/// never hurt anyone, runs alone on a worker from then on, and is not sent back to a worker it
/// was lost on while another can take it. Only a loss where it was the worker's only photo
/// counts against it: with others beside it, the culprit is unknown and none is charged.
package struct WorkerLosses: Equatable {
    /// Workers lost while this photo was their only one: what `--max-worker-losses` counts.
    package internal(set) var count: UInt32
    /// Every worker lost holding it, in order (a worker lost twice is listed twice).
    package internal(set) var workers: [String]
    /// The memory the photo was granted on the last worker lost holding it, as that worker said
    /// when it admitted the photo (0: not heard, or an older worker). Not journaled.
    package internal(set) var grantBytes: UInt64 = 0

    package init(count: UInt32 = 0, workers: [String] = []) {
        self.count = count
        self.workers = workers
    }
}

extension Job {
    package func isSuspect(_ index: UInt32) -> Bool { workerLosses[index] != nil }

    /// Records the loss of `worker`, charged (`alone`: the photo was its only one) or not (the
    /// photo only becomes a suspect). The photo is in flight there, so not in the queue; once its
    /// worker is cleared it waits with the suspects. Returns the photo's losses so far.
    package func recordLoss(_ index: UInt32, worker: String, alone: Bool) -> WorkerLosses {
        var losses = workerLosses[index] ?? WorkerLosses()
        if alone { losses.count += 1 }
        losses.workers.append(worker)
        if let grant = memoryGrants.removeValue(forKey: index) { losses.grantBytes = grant }
        workerLosses[index] = losses
        return losses
    }

    /// Takes back a loss recorded with `worker` (it came back: it had not died); a photo with
    /// no loss left is no longer a suspect. Returns what is left, nil for none.
    @discardableResult
    package func forgiveLoss(_ index: UInt32, worker: String, alone: Bool) -> WorkerLosses? {
        guard var losses = workerLosses[index], let position = losses.workers.lastIndex(of: worker) else { return workerLosses[index] }
        losses.workers.remove(at: position)
        if alone && losses.count > 0 { losses.count -= 1 }
        workerLosses[index] = losses.workers.isEmpty ? nil : losses
        // No longer a suspect: back in the queue, at its place in viewport order.
        refreshQueue(index)
        return workerLosses[index]
    }

    /// A suspect ready to run: ready as any photo (see `isReady`) and wanted by the viewport.
    package func isReadySuspect(_ photo: PhotoRecord) -> Bool {
        !photo.isSettled && !photo.isInFlight && !delayedIndices.contains(photo.index) && !waitsForLeader(photo)
            && planner.wants(Int(photo.index))
    }

    /// Suspects waiting for a worker, lowest index first (a handful: photos lost with workers).
    package var readySuspects: [UInt32] {
        guard !workerLosses.isEmpty else { return [] }
        return workerLosses.keys.filter { isReadySuspect(photos[Int($0)]) }.sorted()
    }

    /// Suspects waiting in the queue for a worker: they need one to themselves. A suspended
    /// job's are left out (nothing of it starts until it resumes).
    package var queuedSuspects: [UInt32] {
        guard !workerLosses.isEmpty, !isSuspended, !isFinished else { return [] }
        return readySuspects
    }
}
