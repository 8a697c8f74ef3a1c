import Foundation
import Logging
import PhotoClusterProto

/// What the scheduling core asks its shell to do, in the order it must be done: the shell takes
/// them once `handle` returns (`CoordinatorCore.takeActions(into:)`). What it learns in doing
/// them comes back as events, never as an answer.
package enum CoordinatorAction {
    /// A message to a worker (after any graphs assigned to it before); one that cannot leave is
    /// dropped (the heartbeat check decides whether the worker is lost).
    case sendToWorker(String, Photocluster_V1_CoordinatorToWorker.OneOf_Body)
    /// Graphs for a worker, as one `AssignGraphs` numbered `sequence`. The core records them as
    /// sent; one that cannot leave comes back as `.graphsRefused`.
    case sendGraphs(String, GraphBatch, sequence: UInt64)
    /// Photos settled (done, failed or cancelled): journal them and tell the clients.
    /// `progress`: the job's counts right after them (photos settled later in the same event
    /// are told by the actions after it).
    case photosSettled(job: String, [(photo: PhotoRecord, worker: String?)], progress: Photocluster_V1_JobProgress)
    /// Write a result's photo under each target's name in the job's directory; answered later
    /// with `.resultsWritten`.
    case writeResult(Photocluster_V1_PhotoResult, worker: String, encoded: Data, targets: [(index: UInt32, name: String)])
    /// Remove files just written for photos that settled meanwhile (cancelled for good, or their
    /// write given up): no file that looks finished is left for them.
    case removeOutputs(WrittenResult, names: [String])
    /// The job entered `phase` (in progress, will finish): tell its clients.
    case jobPhase(job: String, Photocluster_V1_JobPhase)
    /// Write the job's `index.json` (and remove the temporary files its writes may have left);
    /// answered with `.indexWritten`.
    case writeIndex(String)
    /// The job ended (did finish, or cancelled; `problem`: why it has no index): journal it,
    /// tell its clients its phase and summary, and keep no more of its directory. The job comes
    /// with it: retention may forget it in the same event, before the shell carries this out.
    case jobFinished(Job, problem: String?)
    /// Finished jobs forgotten by retention: drop what the shell keeps of them, in memory and
    /// in the journal.
    case jobsForgotten([Job])
    /// Journal the photo's worker losses (nil: none left).
    case journalLosses(job: String, photo: UInt32, WorkerLosses?)
    /// Journal the job's control state (viewport, epoch, suspension) and its photos' states.
    case journalJobState(String)
    /// A worker's report of a stage it ran (metrics, rates).
    case stageReported(Photocluster_V1_StageProgress, worker: String, wasted: Bool)
    /// A worker's spans for an attempt (the task stream).
    case spansReported(Photocluster_V1_PhotoSpans, worker: String)
    /// A report or message not believed: counted (`reason`) and logged now and then.
    case rejected(worker: String, key: String?, what: String, reason: String, why: String, job: String?, photo: UInt32?)
    /// A worker's hello of a protocol version not accepted (it was told why): counted and logged.
    case refusedProtocol(worker: String, key: String?, why: String)
    /// A worker joined or left: the in-flight gauge.
    case workersChanged
    case count(Counter)
    case log(Logger.Level, String, job: String?, photo: UInt32?, worker: String?)

    package enum Counter {
        case requeued, retried, poisonPhoto, heartbeatMissed, droppedFrame
        case cancelled(Int, reason: String)
    }
}
