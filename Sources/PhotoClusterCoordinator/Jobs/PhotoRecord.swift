import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What the coordinator knows of one photo of a job: small integers only, so a job of a million
/// photos costs tens of megabytes. Its name, URL and output stem are in the job's
/// `ManifestStrings`, its filters in the job's `chains`, its workers in the node's worker table;
/// `Job` turns them back into strings where they are needed.
struct PhotoRecord {
    let index: UInt32
    /// The filters it runs: an index into the job's distinct `chains`.
    let chain: UInt32
    var state: PhotoState = .new
    /// Cancelled because it left the viewport: it runs again if it comes back into view.
    var parked = false
    /// The format of its output file once done, as the raw value of `Photocluster_V1_OutputFormat`
    /// (the enum itself takes nine bytes).
    private var outputFormatValue: UInt8 = 0
    /// Index of the earlier photo of the job with the same URL, filters and output (its leader),
    /// or `noLeader`: a follower is not run, it gets a copy of the leader's result.
    private var leaderIndex = PhotoRecord.noLeader
    /// The worker holding the photo while it is in flight.
    var worker = WorkerNumber.none
    /// The worker that holds intermediate results of this photo, to send it back there.
    var cachedOn = WorkerNumber.none
    /// Graphs sent for it (a viewport's cancel, a lost worker or a bounce makes another).
    var attempts: UInt32 = 0
    /// Transient failures reported for it, which the retry budget counts (not restored).
    var failures: UInt32 = 0
    var width: UInt32 = 0
    var height: UInt32 = 0
    /// Empty unless it failed or was cancelled (literal reasons cost no allocation).
    var failedStage = ""
    var reason = ""

    private static let noLeader = UInt32.max

    init(index: UInt32, chain: UInt32) {
        self.index = index
        self.chain = chain
    }

    var leader: UInt32? {
        get { leaderIndex == Self.noLeader ? nil : leaderIndex }
        set { leaderIndex = newValue ?? Self.noLeader }
    }

    var outputFormat: Photocluster_V1_OutputFormat {
        get { Photocluster_V1_OutputFormat(rawValue: Int(outputFormatValue)) ?? .jpeg }
        set { outputFormatValue = UInt8(clamping: newValue.rawValue) }
    }

    var isInFlight: Bool { worker != .none }

    /// Finished for good: done, failed, or cancelled by the client (not merely out of view).
    var isSettled: Bool { state == .done || state == .failed || (state == .cancelled && !parked) }
}

/// A connected worker's number in the coordinator's worker table: what a photo record holds
/// instead of the worker's id. A worker that registers again while connected keeps its number;
/// otherwise numbers are never reused, so a number left behind by a lost worker names no one.
struct WorkerNumber: Hashable {
    let value: UInt32

    static let none = WorkerNumber(value: 0)
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
