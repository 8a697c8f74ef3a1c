import Foundation
import Logging
import PhotoClusterCore
import PhotoClusterImaging
import PhotoClusterMetrics
import PhotoClusterProto
import PhotoClusterProtocol
import PhotoClusterStorage
import PhotoClusterTransport

/// The engine's callbacks, from operation threads: stage progress, incidents, and each photo's
/// outcome, posted to the loop as reports.
extension WorkerNode {
    func stageFinished(_ work: PhotoWork, _ stage: Photocluster_V1_Stage, bytes: UInt64, pixels: UInt64, seconds: Double) {
        metrics.stageFinished(stage.metricLabel, seconds: seconds, bytes: bytes, pixels: pixels)
        // The result itself tells the coordinator that encoding is done.
        guard stage != .encode else { return }
        var progress = Photocluster_V1_StageProgress()
        progress.jobID = work.graph.jobID
        progress.photoIndex = work.graph.photoIndex
        progress.stage = stage
        progress.bytes = bytes
        progress.pixels = pixels
        progress.seconds = seconds
        progress.attempt = work.graph.attempt
        progress.graphEpoch = work.graph.epoch
        pendingProgress.put(progress)
    }

    /// The photo was granted `grant` bytes of the memory budget: the coordinator hears of it at
    /// once (the loop is woken), before the photo's pixels can outgrow the worker.
    func admitted(_ work: PhotoWork, grant: Int) {
        var admitted = Photocluster_V1_PhotoAdmitted()
        admitted.jobID = work.graph.jobID
        admitted.photoIndex = work.graph.photoIndex
        admitted.attempt = work.graph.attempt
        admitted.graphEpoch = work.graph.epoch
        admitted.memoryGrantBytes = UInt64(max(0, grant))
        pendingAdmissions.put(admitted)
        loop.post { [unowned self] in sendPendingProgress() }
    }

    /// Counts the incident and logs it at warning, naming the photo, its job and the plugin.
    func record(_ incident: WorkerIncident, of work: PhotoWork) {
        var metadata: Logger.Metadata = ["job": "\(work.graph.jobID)", "photo": "\(work.graph.photoIndex)", "name": "\(work.graph.name)"]
        switch incident {
        case .plugin(let failure):
            metadata["plugin"] = "\(failure.plugin)"
            metadata["filter"] = "\(failure.filter)"
            switch failure.kind {
            case .crashed: metrics.pluginCrashed(plugin: failure.plugin, filter: failure.filter)
            case .timedOut: metrics.stageTimedOut("filter")
            case .ignoredCancellation, .brokeProtocol, .unavailable: break
            }
            logger.warning("photo \(work.graph.name) of job \(work.graph.jobID): \(failure)", metadata: metadata)
        case .stageTimedOut(let stage, let name, let limit):
            metrics.stageTimedOut(stage.metricLabel)
            logger.warning(
                "photo \(work.graph.name) of job \(work.graph.jobID): \(name) \(StageTimeLimit.overrun(limit))", metadata: metadata)
        }
    }

    func finished(_ work: PhotoWork, _ outcome: PhotoWork.Outcome) {
        let graph = work.graph
        let body: Photocluster_V1_WorkerReport.OneOf_Body
        let photo: Data?
        switch outcome {
        case .encoded(let data, let format, let width, let height):
            var result = Photocluster_V1_PhotoResult()
            result.jobID = graph.jobID
            result.photoIndex = graph.photoIndex
            result.attempt = graph.attempt
            result.graphEpoch = graph.epoch
            result.format = Photocluster_V1_OutputFormat(format)
            result.width = UInt32(width)
            result.height = UInt32(height)
            // A graph with an output place was stored by this worker: the coordinator hears only where.
            if let locations = work.read({ $0.storedAt }) { result.storedAt = locations }
            body = .result(result)
            photo = result.storedAt.isEmpty ? data : nil
        case .failed(let stage, let stageName, let reason, let transient):
            body = .failure(failed(graph, at: stage, stageName, reason: reason, transient: transient))
            photo = nil
        case .cancelled(let lastFinished):
            var cancelled = Photocluster_V1_PhotoCancelled()
            cancelled.jobID = graph.jobID
            cancelled.photoIndex = graph.photoIndex
            cancelled.lastFinished = lastFinished
            cancelled.attempt = graph.attempt
            cancelled.graphEpoch = graph.epoch
            body = .cancelled(cancelled)
            photo = nil
            metrics.photoEnded(outcome: "cancelled")
        }
        let spans = work.spansReport()
        loop.post { [unowned self] in
            sendPendingProgress()
            if let spans { reports.add(.spans(spans)) }
            if let photo, let reason = session.refusal(ofResultBytes: photo.count) {
                reports.add(.failure(failed(graph, at: .encode, "result", reason: reason, transient: false)))
            } else {
                if case .result = body { metrics.photoEnded(outcome: "succeeded") }
                reports.add(body, photo: photo)
            }
            reports.credit += session.credit.returned(byEnded: 1)
        }
    }

    /// The report of a photo that failed, counted and logged.
    func failed(
        _ graph: Photocluster_V1_PhotoGraph, at stage: Photocluster_V1_Stage, _ stageName: String, reason: String, transient: Bool
    ) -> Photocluster_V1_PhotoFailure {
        metrics.photoEnded(outcome: "failed")
        logger.info("photo failed at \(stageName): \(reason)", metadata: ["job": "\(graph.jobID)", "photo": "\(graph.photoIndex)"])
        var failure = Photocluster_V1_PhotoFailure()
        failure.jobID = graph.jobID
        failure.photoIndex = graph.photoIndex
        failure.attempt = graph.attempt
        failure.graphEpoch = graph.epoch
        failure.stage = stage
        failure.stageName = stageName
        failure.reason = reason
        failure.transient = transient
        return failure
    }
}
