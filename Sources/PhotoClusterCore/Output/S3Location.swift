/// A bucket and a key: `s3://BUCKET/KEY` in manifests, `s3://BUCKET/PREFIX` for outputs.
///
/// Bucket names follow S3's rules for new buckets (3–63 lowercase letters, digits, `.` and `-`,
/// starting and ending with a letter or digit), which also makes them safe as a host name label:
/// a manifest picks a bucket and a key, never the host a request goes to (that is the
/// endpoint the operator configured; see `S3Configuration`). Keys are taken literally (no
/// percent-decoding, as the AWS CLI does), at most 1,024 bytes of UTF-8, without control
/// characters.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    public let bucket: String
    public let key: String

    public static let scheme = "s3"

    /// Whether `text` is meant as an S3 URL (it may still be a bad one).
    public static func isS3URL(_ text: String) -> Bool {
        text.lowercased().hasPrefix("\(scheme)://")
    }

    /// Parses `s3://BUCKET/KEY`; `requireKey` refuses a URL that names only a bucket.
    public init(parsing text: String, requireKey: Bool = true) throws {
        guard Self.isS3URL(text) else { throw S3LocationError(text: text, reason: "it does not start with s3://") }
        let rest = text.dropFirst(Self.scheme.count + 3)
        let bucket = String(rest.prefix { $0 != "/" })
        let key = String(rest.dropFirst(bucket.count + 1))
        if let problem = Self.bucketProblem(bucket) { throw S3LocationError(text: text, reason: problem) }
        if requireKey && key.isEmpty { throw S3LocationError(text: text, reason: "it names a bucket but no object key (s3://BUCKET/KEY)") }
        if let problem = Self.keyProblem(key) { throw S3LocationError(text: text, reason: problem) }
        self.bucket = bucket
        self.key = key
    }

    public init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    /// The object `name` under this location taken as a prefix: `PREFIX/name` (or `name`).
    public func appending(_ name: String) -> S3Location {
        S3Location(bucket: bucket, key: key.isEmpty ? name : key.hasSuffix("/") ? key + name : key + "/" + name)
    }

    public var description: String { "s3://\(bucket)/\(key)" }

    static func bucketProblem(_ bucket: String) -> String? {
        if bucket.isEmpty { return "it has no bucket name" }
        guard (3...63).contains(bucket.count) else { return "the bucket name \"\(bucket)\" is not 3 to 63 characters long" }
        let allowed = bucket.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }
        guard allowed else { return "the bucket name \"\(bucket)\" may hold only lowercase letters, digits, \".\" and \"-\"" }
        let ends = [bucket.unicodeScalars.first!, bucket.unicodeScalars.last!]
        guard ends.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) }) else {
            return "the bucket name \"\(bucket)\" must start and end with a letter or a digit"
        }
        if bucket.contains("..") || bucket.contains(".-") || bucket.contains("-.") {
            return "the bucket name \"\(bucket)\" has an empty or malformed label"
        }
        if bucket.split(separator: ".").count == 4 && bucket.split(separator: ".").allSatisfy({ UInt8($0) != nil }) {
            return "the bucket name \"\(bucket)\" looks like an IP address"
        }
        return nil
    }

    static func keyProblem(_ key: String) -> String? {
        if key.utf8.count > 1024 { return "the object key is longer than 1,024 bytes" }
        if key.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "the object key holds a control character" }
        return nil
    }
}

/// An S3 URL that cannot be used, and why.
public struct S3LocationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let text: String
    public let reason: String
    public init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }
    public var description: String { "\"\(text)\" is not a usable S3 URL: \(reason)" }
}
