import Foundation
import PhotoClusterPluginHost
import PhotoClusterProto

/// Where stages announce progress and the engine announces outcomes; the worker node turns
/// these into messages on its loop thread.
struct StageReporter: Sendable {
    let onStage: @Sendable (PhotoWork, Photocluster_V1_Stage, _ bytes: UInt64, _ pixels: UInt64, _ seconds: Double) -> Void
    let onIncident: @Sendable (PhotoWork, WorkerIncident) -> Void

    func stageFinished(_ work: PhotoWork, _ stage: Photocluster_V1_Stage, bytes: UInt64, pixels: UInt64, seconds: Double) {
        onStage(work, stage, bytes, pixels, seconds)
    }

    func incident(_ work: PhotoWork, _ incident: WorkerIncident) {
        onIncident(work, incident)
    }
}

/// Something an operator should hear of, beside the photo's own outcome.
enum WorkerIncident: Sendable {
    /// A plugin filter crashed its host, ran out of time, broke the host's protocol, or ran on
    /// after a cancel until its host was killed.
    case plugin(PluginHostFailure)
    /// A built-in stage ran past the time limit.
    case stageTimedOut(stage: Photocluster_V1_Stage, name: String, limit: TimeInterval)
}
