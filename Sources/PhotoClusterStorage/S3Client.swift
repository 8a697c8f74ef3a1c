import Crypto
import Foundation
import PhotoClusterCore
import PhotoClusterDownload

/// Reads and writes S3 objects through a `DownloadEngine` (libcurl, which signs each request with
/// AWS Signature Version 4). Each request is retried with back-off when S3 answers 5xx or
/// throttles, or the connection fails; an upload is one PUT up to `partSize` bytes and a
/// multipart upload above, which S3 makes visible only once it is complete (and which is aborted
/// when it fails), so an object appears whole or not at all.
public final class S3Client: Sendable {
    public let configuration: S3Configuration
    private let engine: DownloadEngine

    public init(configuration: S3Configuration, engine: DownloadEngine) {
        self.configuration = configuration
        self.engine = engine
    }

    /// The object's bytes, at most `maxBytes` of them.
    public func get(_ object: S3Location, maxBytes: Int) async throws -> Data {
        let call = S3Call(method: "GET", object: object, action: "s3:GetObject", maxResponseBytes: maxBytes)
        return try await send(call).body
    }

    /// Writes `data` as the object, with its Content-Type. Throws `S3Failure`.
    public func put(_ data: Data, at object: S3Location, contentType: String) async throws {
        if data.count > configuration.partSize {
            try await S3MultipartUpload(client: self, object: object, contentType: contentType).run(data)
        } else {
            let call = S3Call(method: "PUT", object: object, action: "s3:PutObject", headers: [("Content-Type", contentType)], body: data)
            _ = try await send(call)
        }
    }

    /// Sends `call` until S3 accepts it, retrying what may pass later; throws `S3Failure`.
    func send(_ call: S3Call) async throws -> CurlResponse {
        let request = makeRequest(call)
        var attempt = 1
        while true {
            let failure: S3Failure
            switch await sendOnce(request) {
            case .success(let response) where (200..<300).contains(response.status) && !S3XML.hasRoot("Error", in: response.body):
                return response
            case .success(let response):
                failure = S3Failure.answered(response, call.object.description, action: call.action, configuration: configuration)
            case .failure(let error):
                failure = S3Failure.transport(error, call.object.description, action: call.action, configuration: configuration)
            }
            guard failure.isTransient, attempt < configuration.maxAttempts, !Task.isCancelled else {
                if Task.isCancelled { throw S3Failure.cancelled(call.object) }
                let final = attempt > 1 ? S3Failure(message: "\(failure.message) (after \(attempt) tries)", clientMessage: failure.clientMessage,
                                                    isTransient: failure.isTransient, status: failure.status, code: failure.code) : failure
                // The whole story (S3's text, the key id) stays in this node's log; clients get `clientMessage`.
                S3Diagnostics.report(final.message)
                throw final
            }
            // Exponential back-off with jitter, so throttled workers do not come back in step.
            let wait = configuration.retryBackoff * pow(2, Double(attempt - 1)) * Double.random(in: 0.8...1.2)
            do {
                try await Task.sleep(nanoseconds: UInt64(wait * 1e9))
            } catch {
                throw S3Failure.cancelled(call.object)
            }
            attempt += 1
        }
    }

    private func makeRequest(_ call: S3Call) -> CurlRequest {
        var headers = call.headers
        // S3 wants the body's SHA-256 with every signed request; libcurl signs this header too.
        headers.append(("x-amz-content-sha256", SHA256.hash(data: call.body).map { String(format: "%02x", $0) }.joined()))
        if let token = configuration.credentials?.sessionToken { headers.append(("x-amz-security-token", token)) }
        return CurlRequest(
            method: call.method, url: configuration.url(of: call.object, query: call.query), headers: headers, body: call.body,
            signing: configuration.credentials?.signing(region: configuration.region), responseHeaders: call.responseHeaders,
            connectTimeout: configuration.connectTimeout, totalTimeout: configuration.requestTimeout,
            maxResponseBytes: max(call.maxResponseBytes, 1 << 20))
    }

    /// One exchange; a cancelled task aborts the transfer at once.
    private func sendOnce(_ request: CurlRequest) async -> Result<CurlResponse, DownloadError> {
        let handle = RequestHandle()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                handle.set(engine.send(request) { continuation.resume(returning: $0) })
            }
        } onCancel: {
            handle.cancel()
        }
    }
}

/// One S3 operation on an object: what is sent and what it is called in messages.
struct S3Call: Sendable {
    var method: String
    var object: S3Location
    /// The IAM action it needs, for messages ("S3 denied s3:PutObject on …").
    var action: String
    var query: [(String, String)] = []
    var headers: [(name: String, value: String)] = []
    var body = Data()
    var responseHeaders: [String] = []
    var maxResponseBytes = 1 << 20
}

/// The transfer of a request in flight, for a cancel that may come before it exists.
///
/// `@unchecked Sendable` invariant: both fields are read and written under `lock` only.
private final class RequestHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var handle: DownloadHandle?
    private var cancelled = false

    func set(_ handle: DownloadHandle) {
        lock.lock()
        self.handle = handle
        let cancelNow = cancelled
        lock.unlock()
        if cancelNow { handle.cancel() }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let handle = self.handle
        lock.unlock()
        handle?.cancel()
    }
}
