import Foundation
import PhotoClusterCore
import PhotoClusterProto

/// What the coordinator knows of one photo of a job: small integers only, so a job of a million
/// photos costs tens of megabytes. Its name, URL and output stem are in the job's
/// `ManifestStrings`, its filters in the job's `chains`, its workers in the node's worker table;
/// `Job` turns them back into strings where they are needed.
package struct PhotoRecord {
    package let index: UInt32
    /// The filters it runs: an index into the job's distinct `chains`.
    package let chain: UInt32
    package internal(set) var state: PhotoState = .new
    /// Cancelled because it left the viewport: it runs again if it comes back into view.
    package internal(set) var parked = false
    /// The format of its output file once done, as the raw value of `Photocluster_V1_OutputFormat`
    /// (the enum itself takes nine bytes).
    private var outputFormatValue: UInt8 = 0
    /// The oldest worker protocol it may be sent to, 0 for any (see `ProtocolNeeds`); in the
    /// padding after the byte above, so the record stays 72 bytes.
    package let neededProtocol: UInt8
    /// Index of the earlier photo of the job with the same URL, filters and output (its leader),
    /// or `noLeader`: a follower is not run, it gets a copy of the leader's result.
    private var leaderIndex = PhotoRecord.noLeader
    /// The worker holding the photo while it is in flight.
    package internal(set) var worker = WorkerNumber.none
    /// The worker that holds intermediate results of this photo, to send it back there.
    package internal(set) var cachedOn = WorkerNumber.none
    /// Graphs sent for it (a viewport's cancel, a lost worker or a bounce makes another).
    package internal(set) var attempts: UInt32 = 0
    /// Transient failures reported for it, which the retry budget counts (not restored).
    package internal(set) var failures: UInt32 = 0
    package internal(set) var width: UInt32 = 0
    package internal(set) var height: UInt32 = 0
    /// Empty unless it failed or was cancelled (literal reasons cost no allocation).
    package internal(set) var failedStage = ""
    package internal(set) var reason = ""

    private static let noLeader = UInt32.max

    package init(index: UInt32, chain: UInt32, neededProtocol: UInt8 = 0) {
        self.index = index
        self.chain = chain
        self.neededProtocol = neededProtocol
    }

    package var leader: UInt32? {
        get { leaderIndex == Self.noLeader ? nil : leaderIndex }
        set { leaderIndex = newValue ?? Self.noLeader }
    }

    package var outputFormat: Photocluster_V1_OutputFormat {
        get { Photocluster_V1_OutputFormat(rawValue: Int(outputFormatValue)) ?? .jpeg }
        set { outputFormatValue = UInt8(clamping: newValue.rawValue) }
    }

    package var isInFlight: Bool { worker != .none }

    /// Finished for good: done, failed, or cancelled by the client (not merely out of view).
    package var isSettled: Bool { state == .done || state == .failed || (state == .cancelled && !parked) }
}

/// A connected worker's number in the coordinator's worker table: what a photo record holds
/// instead of the worker's id. A worker that registers again while connected keeps its number;
/// otherwise numbers are never reused, so a number left behind by a lost worker names no one.
package struct WorkerNumber: Hashable {
    package let value: UInt32

    package static let none = WorkerNumber(value: 0)
}

extension PhotoState {
    package var proto: Photocluster_V1_PhotoState {
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
