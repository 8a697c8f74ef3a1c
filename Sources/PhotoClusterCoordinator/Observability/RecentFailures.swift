import Foundation
import PhotoClusterProto
import PhotoClusterScheduling

/// The latest photo failures, newest first, for operators (`cluster status`, the dashboard).
struct RecentFailures {
    static let capacity = 50
    private(set) var newestFirst: [Photocluster_V1_RecentFailure] = []

    mutating func record(job: String, photo: PhotoRecord, name: String, at now: Date = Date()) {
        var failure = Photocluster_V1_RecentFailure()
        failure.jobID = job
        failure.index = photo.index
        failure.name = name
        failure.stage = photo.failedStage
        failure.reason = photo.reason
        failure.atUnixSeconds = now.timeIntervalSince1970
        newestFirst.insert(failure, at: 0)
        if newestFirst.count > Self.capacity { newestFirst.removeLast() }
    }
}
