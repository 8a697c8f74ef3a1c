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
    /// Cancelled because it left the viewport: it runs again if it comes back into view.
    var parked = false
    /// Set for a photo whose URL, filters and output match an earlier photo of the job (its
    /// leader): it is not run, it gets a copy of the leader's result.
    var leader: UInt32?
    /// The worker that holds intermediate results of this photo, to send it back there.
    var cachedOn: String?
    /// Graphs sent for it (a viewport's cancel, a lost worker or a bounce makes another).
    var attempts: UInt32 = 0
    /// Transient failures reported for it, which the retry budget counts (not restored).
    var failures: UInt32 = 0
    var failedStage = ""
    var reason = ""
    var outputPath = ""
    var width: UInt32 = 0
    var height: UInt32 = 0

    var isInFlight: Bool { worker != nil }

    /// Finished for good: done, failed, or cancelled by the client (not merely out of view).
    var isSettled: Bool { state == .done || state == .failed || (state == .cancelled && !parked) }

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
