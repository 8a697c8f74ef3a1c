import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What reaches the scheduling core (`CoordinatorCore.handle(_:now:wallClock:)`): messages, timers and
/// the outcomes of what the shell did for it (what a send or a write came to, handed in after
/// the `handle` that decided it has returned).
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
    /// A job submitted (and journaled): it starts.
    case jobOpened(Job)
    /// The jobs of the journal, as a restarted coordinator or a new leader reads them, and the
    /// finished ones' ids, the first to finish first (see `CoordinatorCore+Lifecycle`).
    case jobsRestored([Job], finishOrder: [String])
    /// A client's viewport, as it asked (the core checks and clamps it to the job's photos).
    case viewport(job: String, Photocluster_V1_Viewport, arrivedAt: MonotonicInstant)
    case suspend(job: String, Bool, arrivedAt: MonotonicInstant)
    /// Photos cancelled by name; every photo (and the job) when `names` is empty.
    case cancel(job: String, names: Set<String>)
    /// An admin asked a worker to drain (see `DrainRequest`); 0: the worker's own timeout.
    case drainWorker(String, timeoutMs: UInt32)
    /// The job's index (`.writeIndex`) is written, or could not be (`problem`, for the log).
    case indexWritten(String, problem: String?)
    /// The shell dropped a worker (its key was removed).
    case workerRemoved(String, WorkerDeparture)
    /// Results the shell wrote (or could not write).
    case resultsWritten([WrittenResult])
    /// Writes outstanding longer than `limit` seconds are given up, their photos failed.
    case writesOverdue(limit: TimeInterval)
    /// Batches of graphs (`.sendGraphs`) the shell could not send: the worker is gone or not
    /// reading. Handed in once the actions in hand are carried out, those of one pass together.
    case graphsRefused([RefusedGraphs])
    /// Whether any client of the job now hears of each of its photos as it settles (a watch
    /// or submit with `EventDetail.everyPhoto` came or went).
    case clientsHearEveryPhoto(job: String, Bool)
}

/// A `.sendGraphs` action that did not leave, as the shell was given it.
package struct RefusedGraphs {
    package let worker: String
    package let batch: GraphBatch
    package let sequence: UInt64

    package init(worker: String, batch: GraphBatch, sequence: UInt64) {
        self.worker = worker
        self.batch = batch
        self.sequence = sequence
    }

    /// The refusal of `action`, if it is a batch of graphs.
    package init?(_ action: CoordinatorAction) {
        guard case .sendGraphs(let worker, let batch, let sequence) = action else { return nil }
        self.init(worker: worker, batch: batch, sequence: sequence)
    }
}

/// A result the shell wrote to its files: each target's error, nil when written.
package struct WrittenResult {
    package let result: Photocluster_V1_PhotoResult
    package let worker: String
    package let targets: [(index: UInt32, name: String)]
    package let errors: [Error?]
    /// Where the shell wrote the files (its own handle, handed back with `.removeOutputs`).
    package let destination: (any Sendable)?

    package init(result: Photocluster_V1_PhotoResult, worker: String, targets: [(index: UInt32, name: String)], errors: [Error?], destination: (any Sendable)? = nil) {
        self.result = result
        self.worker = worker
        self.targets = targets
        self.errors = errors
        self.destination = destination
    }
}
