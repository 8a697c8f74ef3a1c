import Foundation

/// A photo that was on a worker when the worker died (a crash, the OOM killer, a hard fault):
/// how many times, and which workers. A photo lost once is a suspect: it waits outside the
/// viewport queue, behind every photo that never hurt anyone, runs alone on a worker from then
/// on, so each later loss is its own, and is not sent back to a worker it was lost on while
/// another can take it.
struct WorkerLosses: Equatable {
    var count: UInt32 = 0
    /// The workers lost, in order (a worker lost twice is listed twice).
    var workers: [String] = []
}

extension Job {
    func isSuspect(_ index: UInt32) -> Bool { workerLosses[index] != nil }

    /// Charges one loss with `worker` (the photo is in flight there, so not in the queue; once
    /// its worker is cleared it waits with the suspects); returns the photo's losses so far.
    mutating func chargeLoss(_ index: UInt32, worker: String) -> WorkerLosses {
        var losses = workerLosses[index] ?? WorkerLosses()
        losses.count += 1
        losses.workers.append(worker)
        workerLosses[index] = losses
        return losses
    }

    /// Takes back a loss charged with `worker` (it came back: it had not died); a photo with no
    /// loss left is no longer a suspect. Returns what is left, nil for none.
    @discardableResult
    mutating func forgiveLoss(_ index: UInt32, worker: String) -> WorkerLosses? {
        guard var losses = workerLosses[index], let position = losses.workers.lastIndex(of: worker) else { return workerLosses[index] }
        losses.workers.remove(at: position)
        losses.count -= 1
        workerLosses[index] = losses.count == 0 ? nil : losses
        // No longer a suspect: back in the queue, at its place in viewport order.
        refreshQueue(index)
        return workerLosses[index]
    }

    /// A suspect ready to run: ready as any photo (see `isReady`) and wanted by the viewport.
    func isReadySuspect(_ photo: PhotoRecord) -> Bool {
        !photo.isSettled && !photo.isInFlight && !delayedIndices.contains(photo.index) && !waitsForLeader(photo)
            && planner.wants(Int(photo.index))
    }

    /// Suspects waiting for a worker, lowest index first (a handful: photos lost with workers).
    var readySuspects: [UInt32] {
        guard !workerLosses.isEmpty else { return [] }
        return workerLosses.keys.filter { isReadySuspect(photos[Int($0)]) }.sorted()
    }

    /// Suspects waiting in the queue for a worker: they need one to themselves. A suspended
    /// job's are left out (nothing of it starts until it resumes).
    var queuedSuspects: [UInt32] {
        guard !workerLosses.isEmpty, !isSuspended, !isFinished else { return [] }
        return readySuspects
    }
}
