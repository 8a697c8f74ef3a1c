import Foundation
import PhotoClusterCore
import PhotoClusterDownload
import PhotoClusterTestSupport

@testable import PhotoClusterWorker

/// Photos served from memory, for engine tests whose point is not downloading (no HTTP server):
/// each fetch completes on a thread of its own, as a transfer would, and the URLs asked for are
/// counted. A query is ignored (`NAME?1`, `NAME?2`: one photo, fetched as two); an unknown URL
/// fails as a 404.
final class MemoryPhotoSource: PhotoSource {
    private let bodies: [String: Data]
    private let asked = LockedBox<[String]>([])

    init(_ bodies: [String: Data]) {
        self.bodies = bodies
    }

    /// The sample photos `names` (every one by default) at `http://photos.test/NAME`.
    convenience init(samplePhotos names: [String] = Repository.samplePhotoFiles) throws {
        var bodies: [String: Data] = [:]
        for name in names { bodies[Self.url(of: name)] = try Data(contentsOf: Repository.samplePhotos.appendingPathComponent(name)) }
        self.init(bodies)
    }

    static func url(of name: String) -> String { "http://photos.test/\(name)" }

    /// The URLs fetched so far, in order.
    var requests: [String] { asked.current }

    func start(_ url: String, completion: @escaping Completion) -> CancellableTransfer {
        asked.withLock { $0.append(url) }
        let transfer = MemoryTransfer(url: url, completion: completion)
        let body = bodies[String(url.prefix { $0 != "?" })]
        DispatchQueue.global().async {
            transfer.complete(body.map { .success(DownloadedBody(data: $0, finalURL: url, httpStatus: 200)) }
                ?? .failure(DownloadError(kind: .httpStatus(404), message: "HTTP 404 for \(url)", url: url)))
        }
        return transfer
    }
}

/// Completes once: with what the source found, or cancelled if `cancel` comes first.
private final class MemoryTransfer: CancellableTransfer {
    private let url: String
    private let completion: LockedBox<PhotoSource.Completion?>

    init(url: String, completion: @escaping PhotoSource.Completion) {
        self.url = url
        self.completion = LockedBox(completion)
    }

    func complete(_ result: Result<DownloadedBody, DownloadError>) {
        let taken = completion.withLock { pending in
            defer { pending = nil }
            return pending
        }
        taken?(result)
    }

    func cancel() {
        complete(.failure(DownloadError(kind: .cancelled, message: "cancelled", url: url)))
    }
}
