import Foundation
import PhotoClusterCore

/// Where S3 requests go and what signs them, read from the environment variables every S3 tool
/// reads:
///
/// - `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` (both or neither; neither sends unsigned
///   requests, for public buckets) and `AWS_SESSION_TOKEN` for temporary credentials;
/// - `AWS_REGION` (or `AWS_DEFAULT_REGION`; default `us-east-1`), part of every signature;
/// - `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`: an S3-compatible server (MinIO, Ceph, a
///   cloud's S3 API), addressed path-style (`ENDPOINT/BUCKET/KEY`). Without either, AWS's own
///   regional endpoint, addressed virtual-hosted style (`https://BUCKET.s3.REGION.amazonaws.com/KEY`;
///   path-style for bucket names with dots, which a wildcard certificate does not cover).
///
/// The endpoint is the operator's choice, never a manifest's: requests to it are not subject
/// to the download policy, and a manifest's `s3://` URL picks only a bucket and a key.
public struct S3Configuration: Sendable, CustomStringConvertible {
    public var region: String
    /// A custom endpoint (scheme, host, port and an optional path), or nil for AWS's own.
    public var endpoint: URL?
    public var credentials: S3Credentials?
    /// Outputs larger than this go up as a multipart upload, in parts of this size (S3's smallest
    /// part is 5 MiB).
    public var partSize: Int
    /// Tries per request when S3 answers 5xx, throttles (429, SlowDown) or the connection fails.
    public var maxAttempts: Int
    /// The first wait before a retry; it doubles with each one.
    public var retryBackoff: TimeInterval
    public var connectTimeout: TimeInterval
    /// Seconds allowed for one request, transfer included.
    public var requestTimeout: TimeInterval

    public static let minimumPartSize = 5 << 20

    public init(
        region: String = "us-east-1", endpoint: URL? = nil, credentials: S3Credentials? = nil, partSize: Int = 8 << 20,
        maxAttempts: Int = 4, retryBackoff: TimeInterval = 0.2, connectTimeout: TimeInterval = 5, requestTimeout: TimeInterval = 120
    ) {
        self.region = region
        self.endpoint = endpoint
        self.credentials = credentials
        self.partSize = max(Self.minimumPartSize, partSize)
        self.maxAttempts = max(1, maxAttempts)
        self.retryBackoff = retryBackoff
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
    }

    /// The settings the environment gives, or why they cannot be used (naming the variable).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> S3Configuration {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        var configuration = S3Configuration(region: value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1")
        switch (value("AWS_ACCESS_KEY_ID"), value("AWS_SECRET_ACCESS_KEY")) {
        case let (id?, secret?):
            configuration.credentials = S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
        case (nil, nil):
            break
        case (nil, _?):
            throw S3ConfigurationError("AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not: set both, or neither for unsigned requests")
        case (_?, nil):
            throw S3ConfigurationError("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not: set both, or neither for unsigned requests")
        }
        let endpointVariable = value("AWS_ENDPOINT_URL_S3") != nil ? "AWS_ENDPOINT_URL_S3" : "AWS_ENDPOINT_URL"
        if let text = value(endpointVariable) {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                let host = url.host, !host.isEmpty, url.query == nil, url.user == nil
            else {
                throw S3ConfigurationError("\(endpointVariable)=\(text) is not an http or https URL of an S3 endpoint (e.g. http://10.0.0.5:9000)")
            }
            configuration.endpoint = url
        }
        return configuration
    }

    /// The HTTP URL of an object, with a query already in canonical order and encoding.
    func url(of object: S3Location, query: [(String, String)] = []) -> String {
        let path = Self.encodePath(object.key)
        let queryText = query.isEmpty ? "" : "?" + query.sorted { $0.0 < $1.0 }
            .map { "\(Self.encodeComponent($0.0))=\(Self.encodeComponent($0.1))" }.joined(separator: "&")
        if let endpoint {
            var base = endpoint.absoluteString
            while base.hasSuffix("/") { base.removeLast() }
            return "\(base)/\(object.bucket)/\(path)\(queryText)"
        }
        if object.bucket.contains(".") {
            return "https://s3.\(region).amazonaws.com/\(object.bucket)/\(path)\(queryText)"
        }
        return "https://\(object.bucket).s3.\(region).amazonaws.com/\(path)\(queryText)"
    }

    /// Where requests go, for messages: the endpoint, or AWS's regional one.
    public var endpointDescription: String {
        endpoint.map { $0.absoluteString } ?? "https://s3.\(region).amazonaws.com"
    }

    public var description: String {
        "S3 at \(endpointDescription) (region \(region)), \(credentials.map { "\($0)" } ?? "unsigned requests: no credentials set")"
    }

    /// S3's URI encoding: every byte but the unreserved characters, and `/` in paths.
    static func encodePath(_ key: String) -> String { encode(key, keepingSlash: true) }

    static func encodeComponent(_ text: String) -> String { encode(text, keepingSlash: false) }

    private static func encode(_ text: String, keepingSlash: Bool) -> String {
        var encoded = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            let unreserved = ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
                || "-._~".unicodeScalars.contains(scalar) || (keepingSlash && scalar == "/")
            encoded += unreserved ? String(scalar) : String(format: "%%%02X", byte)
        }
        return encoded
    }
}

/// An S3 setting from the environment that cannot be used.
public struct S3ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
