import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// How photos end.
extension Job {
    package func markStage(_ index: UInt32, _ state: PhotoState) {
        guard !photos[Int(index)].state.isTerminal else { return }
        setState(index, state)
    }

    /// Done, its output written where `outputPath(stem:format:)` puts it.
    package func markDone(_ index: UInt32, format: Photocluster_V1_OutputFormat, width: UInt32, height: UInt32) {
        setState(index, .done)
        setWorker(index, .none)
        photos[Int(index)].outputFormat = format
        photos[Int(index)].width = width
        photos[Int(index)].height = height
        photos[Int(index)].failedStage = ""
        photos[Int(index)].reason = ""
    }

    package func markFailed(_ index: UInt32, stage: String, reason: String) {
        setState(index, .failed)
        setWorker(index, .none)
        photos[Int(index)].failedStage = stage
        photos[Int(index)].reason = reason
    }

    /// Cancelled for good (the client cancelled it or the job).
    package func markCancelled(_ index: UInt32, reason: String) {
        guard !photos[Int(index)].isSettled else { return }
        setState(index, .cancelled)
        setWorker(index, .none)
        photos[Int(index)].reason = reason
    }

    /// Cancelled because it left the viewport; it comes back when it is in view again.
    package func park(_ index: UInt32) {
        guard !photos[Int(index)].isSettled else { return }
        setState(index, .cancelled, parked: true)
        setWorker(index, .none)
        photos[Int(index)].reason = "left the viewport"
    }

    package func noteFailureReason(_ index: UInt32, stage: String, reason: String) {
        photos[Int(index)].failedStage = stage
        photos[Int(index)].reason = reason
    }

    /// Adds a stage's work to the job's totals; work on a photo the viewport does not want is
    /// wasted, and the answer says whether this was.
    @discardableResult
    package func account(_ progress: Photocluster_V1_StageProgress) -> Bool {
        let wasted = !planner.wants(Int(progress.photoIndex))
        work.bytes += progress.bytes
        work.pixels += progress.pixels
        if wasted {
            work.wastedBytes += progress.bytes
            work.wastedPixels += progress.pixels
        }
        return wasted
    }

    package func noteCached(_ index: UInt32, on worker: WorkerNumber) {
        photos[Int(index)].cachedOn = worker
    }
}
