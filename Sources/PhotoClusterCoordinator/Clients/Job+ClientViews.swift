import Foundation
import PhotoClusterProto
import PhotoClusterScheduling

/// A job as its clients see it: a photo's status, the job's summary (`cluster status`, `watch`,
/// the dashboard, the HTTP API) and the event that ends it. Built on the coordinator's loop from
/// the core's `Job`, which keeps only what scheduling needs.
extension Job {
    /// The photo as clients see it; `workerID` names the worker holding it.
    package func status(of photo: PhotoRecord, workerID: String = "") -> Photocluster_V1_PhotoStatus {
        var status = Photocluster_V1_PhotoStatus()
        status.index = photo.index
        status.name = name(of: photo.index)
        status.url = url(of: photo.index)
        status.state = photo.state.proto
        status.stage = photo.failedStage
        status.reason = photo.reason
        status.outputPath = outputPath(of: photo)
        status.width = photo.width
        status.height = photo.height
        status.attempts = photo.attempts
        status.workerID = workerID
        status.settledSequence = settledSequence(of: photo.index)
        return status
    }

    /// `workerID` names the worker a photo in flight is on.
    package func summary(includePhotos: Bool, at now: Date, workerID: (WorkerNumber) -> String = { _ in "" }) -> Photocluster_V1_JobSummary {
        var summary = Photocluster_V1_JobSummary()
        summary.jobID = id
        summary.label = label
        summary.phase = phase
        summary.progress = progress
        summary.elapsedSeconds = elapsed(at: now)
        summary.requeues = requeues
        summary.retries = retries
        summary.viewport = viewport.proto(epoch: epoch)
        summary.viewportMode = viewportMode
        summary.suspended = isSuspended
        summary.outputDir = outputLocation
        summary.controlAckMs = controlAckMilliseconds
        summary.bytesDownloaded = work.bytes
        summary.bytesWasted = work.wastedBytes
        summary.pixelsProcessed = work.pixels
        summary.pixelsWasted = work.wastedPixels
        if includePhotos { summary.photos = photos.map { status(of: $0, workerID: $0.isInFlight ? workerID($0.worker) : "") } }
        return summary
    }

    /// Photos encoded at a time by `encodedFinishedEvent`.
    package static let finishedEventPiece = 4096

    /// The event that ends a job for its clients (a `CoordinatorToClient` carrying the summary with
    /// every photo's status, or with those of the photos that did not succeed), encoded a piece
    /// of `finishedEventPiece` photos at a time.
    ///
    /// Protobuf merges a message field that appears twice and appends to a repeated one, so the
    /// pieces, one after the other, decode as the one message: the summary without its photos,
    /// then messages that carry only the next photos. For a million photos this keeps a few
    /// thousand statuses in memory instead of all of them beside their encoding.
    package func encodedFinishedEvent(detail: Photocluster_V1_SummaryDetail = .everyPhoto, at now: Date) -> Data {
        var head = Photocluster_V1_CoordinatorToClient()
        head.event.jobID = id
        head.event.finished = summary(includePhotos: false, at: now)
        var encoded = Envelope.encode(head)
        let listed = detail == .unsuccessful ? photos.count - (tally.states[.done] ?? 0) : photos.count
        encoded.reserveCapacity(encoded.count + listed * 96)
        var start = 0
        while start < photos.count {
            let end = min(start + Self.finishedEventPiece, photos.count)
            var piece = Photocluster_V1_CoordinatorToClient()
            piece.event.finished.photos = photos[start..<end].compactMap { photo in
                detail == .unsuccessful && photo.state == .done ? nil : status(of: photo)
            }
            if !piece.event.finished.photos.isEmpty { encoded.append(Envelope.encode(piece)) }
            start = end
        }
        return encoded
    }
}
