import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What reaches the scheduling core (`CoordinatorCore.handle(_:now:)`): messages, timers and
/// the outcomes of what the shell did for it.
package enum CoordinatorEvent {
    /// A worker's message, decoded, from a connection whose key the shell has checked (`key`:
    /// nil without CURVE); `photos`: the frames after the envelope (a result's encoded photos).
    case fromWorker(id: String, key: String?, message: Photocluster_V1_WorkerToCoordinator, photos: ArraySlice<Data>)
    /// Every message workers had sent has been read.
    case workerMessagesDrained
    /// The heartbeat timer. `messagesWaiting`: worker messages wait unread (their senders are
    /// not silent, only not read yet).
    case heartbeatTick(messagesWaiting: Bool)
    /// The fine timer that ends retry back-offs.
    case retryTick
    /// The shell's turn ends: the graphs assigned during it leave.
    case turnEnded
    /// A job submitted (and journaled) or restored.
    case jobOpened(Job)
    case viewport(job: String, Viewport, arrivedAt: MonotonicInstant)
    case suspend(job: String, Bool, arrivedAt: MonotonicInstant)
    /// Photos cancelled by name; every photo (and the job) when `names` is empty.
    case cancel(job: String, names: Set<String>)
    /// An admin asked a worker to drain (see `DrainRequest`); 0: the worker's own timeout.
    case drainWorker(String, timeoutMs: UInt32)
    /// The job's index is written (or given up): it is closed on the workers.
    case jobEnded(String)
    /// Finished jobs forgotten by retention.
    case jobsForgotten([String])
    /// The shell dropped a worker (its key was removed).
    case workerRemoved(String, WorkerDeparture)
    /// Results the shell wrote (or could not write).
    case resultsWritten([WrittenResult])
    /// Writes outstanding longer than `limit` seconds are given up, their photos failed.
    case writesOverdue(limit: TimeInterval)
}

/// A result the shell wrote to its files: each target's error, nil when written.
package struct WrittenResult {
    package let result: Photocluster_V1_PhotoResult
    package let worker: String
    package let targets: [(index: UInt32, name: String)]
    package let errors: [Error?]

    package init(result: Photocluster_V1_PhotoResult, worker: String, targets: [(index: UInt32, name: String)], errors: [Error?]) {
        self.result = result
        self.worker = worker
        self.targets = targets
        self.errors = errors
    }
}
