import Foundation

/// A request other than a plain download (S3's signed GET, PUT, POST and DELETE), for
/// `DownloadEngine.send`. It goes where its URL says, without the download policy or redirects:
/// the caller chose the host, not a manifest.
public struct CurlRequest: Sendable {
    public var method: String
    public var url: String
    /// Header lines to send, in order.
    public var headers: [(name: String, value: String)]
    /// Sent as is; empty sends an empty body for PUT and POST, none otherwise.
    public var body: Data
    /// libcurl signs the request with AWS Signature Version 4 when set.
    public var signing: SigV4Signing?
    /// Response headers to keep (case-insensitive names), e.g. an upload part's `ETag`.
    public var responseHeaders: [String]
    /// Seconds to connect, and for the whole exchange.
    public var connectTimeout: Double
    public var totalTimeout: Double
    /// Largest response body accepted.
    public var maxResponseBytes: Int

    public init(
        method: String, url: String, headers: [(name: String, value: String)] = [], body: Data = Data(),
        signing: SigV4Signing? = nil, responseHeaders: [String] = [], connectTimeout: Double = 5, totalTimeout: Double = 60,
        maxResponseBytes: Int = 1 << 20
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.signing = signing
        self.responseHeaders = responseHeaders
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxResponseBytes = maxResponseBytes
    }
}

/// What libcurl's `CURLOPT_AWS_SIGV4` signs with. Its description leaves the secret out, so it
/// never reaches a log by accident.
public struct SigV4Signing: Sendable, CustomStringConvertible, CustomReflectable {
    /// libcurl's provider string: `aws:amz:REGION:SERVICE`.
    public let provider: String
    public let accessKeyID: String
    let secretAccessKey: String

    public init(region: String, service: String, accessKeyID: String, secretAccessKey: String) {
        provider = "aws:amz:\(region):\(service)"
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    public var description: String { "SigV4(\(provider), key \(accessKeyID))" }

    /// `dump` and debuggers see the provider and the access key id only.
    public var customMirror: Mirror { Mirror(self, children: ["provider": provider, "accessKeyID": accessKeyID]) }
}

/// A response to an `CurlRequest`, whatever its status.
public struct CurlResponse: Sendable {
    public let status: Int
    /// The status line's reason phrase, e.g. "Forbidden" (may be empty).
    public let reason: String
    /// The headers the request asked to keep that the response had, by lowercased name.
    public let headers: [String: String]
    public let body: Data

    public init(status: Int, reason: String, headers: [String: String], body: Data) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}
