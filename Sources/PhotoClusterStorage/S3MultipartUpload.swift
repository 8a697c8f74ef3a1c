import Foundation
import PhotoClusterCore

/// One object written in parts (CreateMultipartUpload, UploadPart…, CompleteMultipartUpload).
/// S3 shows the object only once the upload is complete; a failed or cancelled upload is aborted
/// (AbortMultipartUpload), so neither a partial object nor, as far as S3 answers, its parts stay.
struct S3MultipartUpload {
    let client: S3Client
    let object: S3Location
    let contentType: String

    func run(_ data: Data) async throws {
        let uploadID = try await create()
        do {
            var parts: [(number: Int, etag: String)] = []
            let size = client.configuration.partSize
            for (index, start) in stride(from: 0, to: data.count, by: size).enumerated() {
                try Task.checkCancellation()
                let part = data.subdata(in: start..<min(start + size, data.count))
                parts.append((index + 1, try await upload(part, number: index + 1, uploadID: uploadID)))
            }
            try await complete(parts, uploadID: uploadID)
        } catch {
            // Not cancelled with the task: the abort is what cleans up after a cancel.
            await Task.detached { [client, object] in
                _ = try? await client.send(S3Call(method: "DELETE", object: object, action: "s3:AbortMultipartUpload", query: [("uploadId", uploadID)]))
            }.value
            if error is CancellationError { throw S3Failure.cancelled(object) }
            throw error
        }
    }

    private func create() async throws -> String {
        let response = try await client.send(S3Call(
            method: "POST", object: object, action: "s3:PutObject", query: [("uploads", "")], headers: [("Content-Type", contentType)]))
        guard let id = S3XML.text(of: "UploadId", in: response.body), !id.isEmpty else {
            throw S3Failure(message: "S3 started a multipart upload of \(object) without an upload id", isTransient: true)
        }
        return id
    }

    private func upload(_ part: Data, number: Int, uploadID: String) async throws -> String {
        let response = try await client.send(S3Call(
            method: "PUT", object: object, action: "s3:PutObject", query: [("partNumber", "\(number)"), ("uploadId", uploadID)],
            headers: [("Content-Type", "application/octet-stream")], body: part, responseHeaders: ["ETag"]))
        guard let etag = response.header("ETag"), !etag.isEmpty else {
            throw S3Failure(message: "S3 took part \(number) of \(object) without an ETag", isTransient: true)
        }
        return etag
    }

    private func complete(_ parts: [(number: Int, etag: String)], uploadID: String) async throws {
        let list = parts.map { "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(S3XML.escape($0.etag))</ETag></Part>" }.joined()
        let body = Data("<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\(list)</CompleteMultipartUpload>".utf8)
        _ = try await client.send(S3Call(
            method: "POST", object: object, action: "s3:PutObject", query: [("uploadId", uploadID)],
            headers: [("Content-Type", "application/xml")], body: body))
    }
}
