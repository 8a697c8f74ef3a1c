import Foundation
import PhotoClusterProto

/// Where stages announce progress and the engine announces outcomes; the worker node turns
/// these into messages on its loop thread.
struct StageReporter: Sendable {
    let onStage: @Sendable (PhotoWork, Photocluster_V1_Stage, _ bytes: UInt64, _ pixels: UInt64, _ seconds: Double) -> Void

    func stageFinished(_ work: PhotoWork, _ stage: Photocluster_V1_Stage, bytes: UInt64, pixels: UInt64, seconds: Double) {
        onStage(work, stage, bytes, pixels, seconds)
    }
}
