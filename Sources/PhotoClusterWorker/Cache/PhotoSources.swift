import Foundation
import PhotoClusterCore
import PhotoClusterDownload
import PhotoClusterStorage

/// A transfer in flight that its caller may give up.
protocol CancellableTransfer: Sendable {
    func cancel()
}

extension DownloadHandle: CancellableTransfer {}

/// Where the engine's download stage gets a photo's bytes. The worker's is `PhotoSources`
/// (HTTP and S3); a test of what the engine does with the bytes, not of downloading, gives the
/// engine one of its own (`WorkerEngine.init(…, source:)`) and needs no server.
protocol PhotoSource: Sendable {
    typealias Completion = @Sendable (Result<DownloadedBody, DownloadError>) -> Void

    /// Starts fetching `url`; `completion` runs once, with the bytes or why there are none (a
    /// cancelled transfer completes with `.cancelled`).
    func start(_ url: String, completion: @escaping Completion) -> CancellableTransfer
}

/// Where a photo's bytes come from: an http(s) URL through the download engine and its policy,
/// an `s3://` URL through the S3 client, which signs the request for the endpoint the operator
/// configured (a manifest picks only the bucket and the key).
final class PhotoSources: PhotoSource {
    private let engine: DownloadEngine
    private let s3: S3Client
    private let maxBytes: Int

    init(engine: DownloadEngine, s3: S3Client, maxBytes: Int) {
        self.engine = engine
        self.s3 = s3
        self.maxBytes = maxBytes
    }

    /// Starts fetching `url`; `completion` runs once, with the bytes or why there are none.
    func start(_ url: String, completion: @escaping Completion) -> CancellableTransfer {
        guard S3Location.isS3URL(url) else { return engine.start(url: url, completion: completion) }
        let object: S3Location
        do {
            object = try S3Location(parsing: url)
        } catch {
            completion(.failure(DownloadError(kind: .invalidURL, message: "\(error)", url: url)))
            return S3Read(task: nil)
        }
        let (s3, maxBytes) = (self.s3, self.maxBytes)
        return S3Read(task: Task {
            do {
                let data = try await s3.get(object, maxBytes: maxBytes)
                completion(.success(DownloadedBody(data: data, finalURL: url, httpStatus: 200)))
            } catch let failure as S3Failure {
                completion(.failure(Self.downloadError(failure, url: url)))
            } catch {
                completion(.failure(DownloadError(kind: .other, message: "\(error)", url: url)))
            }
        })
    }

    /// An S3 failure as the download stage reports it: the message, and whether a retry may help.
    static func downloadError(_ failure: S3Failure, url: String) -> DownloadError {
        let kind: DownloadError.Kind
        if failure.isCancelled {
            kind = .cancelled
        } else if let status = failure.status {
            // S3's own retries are spent; a transient status still lets the coordinator try later.
            kind = failure.isTransient && status < 500 && status != 429 ? .httpStatus(503) : .httpStatus(status)
        } else {
            kind = failure.isTransient ? .connection : .other
        }
        // The client hears which object and what to do; S3's own text stays in the worker's log.
        return DownloadError(kind: kind, message: failure.clientMessage, url: url)
    }
}

/// An S3 read in flight: cancelling its task aborts the request.
private struct S3Read: CancellableTransfer {
    let task: Task<Void, Never>?
    func cancel() { task?.cancel() }
}
