import Foundation

/// An S3 bucket or prefix a client key may read (`s3://` photos in its manifests) or write
/// (`--out s3://…`), as a `grant` line of the authorized-keys file gives it:
///
///     grant KEY write      s3://photos-out/alice      # alice's outputs
///     grant KEY read       s3://photos-in             # a whole bucket
///     grant KEY read-write s3://scratch/alice/
///
/// A grant covers its bucket's objects under the prefix at a `/` boundary: `s3://b/alice`
/// covers `s3://b/alice` and `s3://b/alice/…`, never `s3://b/alice2`. A grant of a bucket alone
/// covers the whole bucket. Grants add up; nothing is granted by one for a different access.
public struct S3Grant: Sendable, Hashable, CustomStringConvertible {
    public enum Access: String, Sendable, Hashable, CaseIterable {
        case read, write
        case readWrite = "read-write"

        /// "read, write or read-write", for messages.
        public static var choices: String { "read, write or read-write" }

        func allows(_ wanted: Access) -> Bool { self == .readWrite || self == wanted }
    }

    public let access: Access
    public let bucket: String
    /// Without leading or trailing slashes; empty: the whole bucket.
    public let prefix: String

    public init(access: Access, bucket: String, prefix: String) {
        self.access = access
        self.bucket = bucket
        self.prefix = prefix.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }

    /// `s3://BUCKET[/PREFIX]`; nil with the reason when `text` is not one.
    public static func parse(_ text: String, access: Access) -> Result<S3Grant, GrantProblem> {
        guard text.lowercased().hasPrefix("s3://") else { return .failure(GrantProblem(text: "'\(text)' is not an s3://BUCKET[/PREFIX] URL")) }
        let rest = text.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        let prefix = String(rest.dropFirst(bucket.count))
        let bucketCharacters = bucket.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }
        guard (3...63).contains(bucket.count), bucketCharacters else {
            return .failure(GrantProblem(text: "'\(text)' does not name a bucket (3 to 63 lowercase letters, digits, '.' and '-')"))
        }
        let segments = prefix.split(separator: "/", omittingEmptySubsequences: true)
        if segments.contains(where: { $0 == "." || $0 == ".." || $0.contains("*") }) {
            return .failure(GrantProblem(text: "'\(text)': a prefix may not hold '.', '..' or '*' segments (a grant covers everything under its prefix)"))
        }
        return .success(S3Grant(access: access, bucket: bucket, prefix: prefix))
    }

    /// Whether this grant lets its key do `wanted` to the object or prefix `key` of `bucket`.
    public func covers(bucket: String, key: String, for wanted: Access) -> Bool {
        guard access.allows(wanted), bucket == self.bucket else { return false }
        if prefix.isEmpty { return true }
        let normalized = key.split(separator: "/", omittingEmptySubsequences: false).drop { $0.isEmpty }.joined(separator: "/")
        return normalized == prefix || normalized.hasPrefix(prefix + "/") || (normalized.hasSuffix("/") && String(normalized.dropLast()) == prefix)
    }

    public var location: String { prefix.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(prefix)" }

    public var description: String { "\(access.rawValue) \(location)" }
}

/// Why a grant's URL cannot be used.
public struct GrantProblem: Error, Sendable, Equatable {
    public let text: String
}

/// What a coordinator does with an `s3://` output or input of a key that has no grant at all
/// (`--s3-default-access`). A key with grants may use only what they cover, whatever this says.
public enum S3DefaultAccess: String, Sendable, CaseIterable {
    /// Any bucket and prefix the workers' own credentials reach (as before grants existed).
    case allow
    /// No S3 at all.
    case deny
}

extension AuthorizedKeys {
    /// The grants given to `key`; empty when it has none.
    public func s3Grants(of key: String) -> [S3Grant] { grants[key] ?? [] }

    /// Whether any key has a grant.
    public var hasS3Grants: Bool { !grants.isEmpty }

    /// Why `key` may not do `wanted` to `s3://bucket/key`, or nil when it may. Admin keys may
    /// use any location unless grants are given to them; a key with grants only what they
    /// cover; a key without grants follows `defaultAccess`.
    public func s3Refusal(of key: String, bucket: String, objectKey: String, for wanted: S3Grant.Access, defaultAccess: S3DefaultAccess) -> String? {
        let given = grants[key] ?? []
        let location = objectKey.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(objectKey)"
        let verb = wanted == .write ? "write" : "read"
        if given.isEmpty {
            if isAdmin(key) || defaultAccess == .allow { return nil }
            return "\(location): \(describeOwner(key)) has no S3 grant, and this coordinator gives keys without one no S3 access "
                + "(--s3-default-access deny); ask the operator for a `grant KEY \(verb) s3://BUCKET/PREFIX` line in the authorized keys"
        }
        if given.contains(where: { $0.covers(bucket: bucket, key: objectKey, for: wanted) }) { return nil }
        let covered = given.filter { $0.access.allows(wanted) }.map(\.location)
        let may = covered.isEmpty ? "no S3 location" : covered.joined(separator: ", ")
        return "\(location) is outside what \(describeOwner(key)) may \(verb) (\(may)); use a location inside its grants, or ask the operator for a grant"
    }

    /// "the client key alice": a key's role and label, without the key, for messages to clients.
    public func describeOwner(_ key: String) -> String {
        guard let entry = entries[key] else { return "a key that is no longer authorized" }
        return "the \(Self.describe(entry.roles)) key \(entry.label)"
    }

    mutating func addGrant(_ grant: S3Grant, to key: String) {
        if grants[key, default: []].contains(grant) { return }
        grants[key, default: []].append(grant)
    }
}
