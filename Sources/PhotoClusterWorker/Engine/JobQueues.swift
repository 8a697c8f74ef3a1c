import Foundation

/// The stage queues of one job on a worker. Per-job queues let a job be suspended
/// (`isSuspended`: running operations finish, none start) without touching other jobs.
final class JobQueues {
    let download = OperationQueue()
    let processing = OperationQueue()

    init(job: String, downloadSlots: Int, concurrency: Int, suspended: Bool) {
        download.name = "download \(job)"
        download.maxConcurrentOperationCount = downloadSlots
        processing.name = "processing \(job)"
        processing.maxConcurrentOperationCount = concurrency
        setSuspended(suspended)
    }

    func setSuspended(_ suspended: Bool) {
        download.isSuspended = suspended
        processing.isSuspended = suspended
    }

    func waitUntilIdle() {
        download.waitUntilAllOperationsAreFinished()
        processing.waitUntilAllOperationsAreFinished()
    }
}
