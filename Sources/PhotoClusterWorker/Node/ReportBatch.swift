import Foundation
import PhotoClusterProto

/// What a worker has to tell the coordinator about its photos, gathered during one turn of its
/// loop and sent as one `WorkerReports` message. Loop-owned (`WorkerNode`).
struct ReportBatch {
    private var reports: [Photocluster_V1_WorkerReport] = []
    /// Encoded photos of the batch's results, in the order of those results.
    private var photos: [Data] = []
    /// Credit the photos that ended give back.
    var credit: UInt32 = 0

    /// Adds a report; `photo`, a result's encoded bytes, travels as a frame of its own.
    mutating func add(_ body: Photocluster_V1_WorkerReport.OneOf_Body, photo: Data? = nil) {
        var report = Photocluster_V1_WorkerReport()
        report.body = body
        if let photo, case .result(var result) = body {
            result.photoInFrame = true
            report.body = .result(result)
            photos.append(photo)
        }
        reports.append(report)
    }

    /// The message's frames (the envelope, then the photos) and an empty batch; nil when there
    /// is nothing to send.
    mutating func take() -> [Data]? {
        guard !reports.isEmpty || credit > 0 else { return nil }
        var message = Photocluster_V1_WorkerToCoordinator()
        message.reports.reports = reports
        message.reports.credit = credit
        let frames = [Envelope.encode(message)] + photos
        reports.removeAll(keepingCapacity: true)
        photos.removeAll(keepingCapacity: true)
        credit = 0
        return frames
    }
}
