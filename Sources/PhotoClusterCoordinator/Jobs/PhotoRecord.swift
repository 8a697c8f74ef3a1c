import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What the coordinator knows of one photo of a job.
struct PhotoRecord {
    let index: UInt32
    let name: String
    let url: String
    let filters: [Photocluster_V1_FilterSpec]
    /// Safe, unique file name without extension (see `OutputNaming`).
    let stem: String
    var state: PhotoState = .new
    /// The worker holding the photo while it is in flight.
    var worker: String?
    var attempts: UInt32 = 0
    var failedStage = ""
    var reason = ""
    var outputPath = ""
    var width: UInt32 = 0
    var height: UInt32 = 0

    var isInFlight: Bool { worker != nil }

    var filterNames: Set<String> { Set(filters.map(\.name)) }

    func status() -> Photocluster_V1_PhotoStatus {
        var status = Photocluster_V1_PhotoStatus()
        status.index = index
        status.name = name
        status.url = url
        status.state = state.proto
        status.stage = failedStage
        status.reason = reason
        status.outputPath = outputPath
        status.width = width
        status.height = height
        status.attempts = attempts
        status.workerID = worker ?? ""
        return status
    }
}

extension PhotoState {
    var proto: Photocluster_V1_PhotoState {
        switch self {
        case .new: return .new
        case .downloaded: return .downloaded
        case .filtered: return .filtered
        case .done: return .done
        case .failed: return .failed
        case .cancelled: return .cancelled
        }
    }
}
