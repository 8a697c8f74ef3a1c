import Foundation
import PhotoClusterProto

extension Job {
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
