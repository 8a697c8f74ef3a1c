/// Where the workers put a job's outputs themselves, instead of sending them to the coordinator:
/// an S3 prefix, or a directory of a file system every worker mounts at the same path (NFS,
/// CephFS, a Kubernetes ReadWriteMany volume).
///
/// Every rule about these paths lives here and in `SharedOutputRoots` (which a worker applies
/// with its own roots): the lexical ones, checked by the client, the coordinator and the worker
/// alike, and the file-system ones, checked where the files are written.
public enum OutputPlace: Sendable, Hashable, CustomStringConvertible {
    /// Objects `PREFIX/NAME.jpg` (the prefix has no trailing slash; it may be empty).
    case s3(S3Location)
    /// Files `DIRECTORY/NAME.jpg`; an absolute path without `.` or `..` components.
    case shared(String)

    /// `s3://BUCKET/PREFIX`; a trailing slash is dropped, an empty prefix means the bucket's top.
    public static func s3(parsing text: String) throws -> OutputPlace {
        let location = try S3Location(parsing: text, requireKey: false)
        var prefix = location.key
        while prefix.hasSuffix("/") { prefix.removeLast() }
        if !prefix.isEmpty, let segment = prefix.split(separator: "/", omittingEmptySubsequences: false).first(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            throw S3LocationError(text: text, reason: "the prefix has an empty, \".\" or \"..\" segment (\"\(segment)\")")
        }
        return .s3(S3Location(bucket: location.bucket, key: prefix))
    }

    /// An absolute directory, as every worker sees it; refuses relative paths and `.`/`..`.
    public static func shared(parsing path: String) throws -> OutputPlace {
        guard path.hasPrefix("/") else { throw SharedPathError(path: path, reason: "it is not an absolute path") }
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        if components.contains(where: { $0 == "." || $0 == ".." }) {
            throw SharedPathError(path: path, reason: "it has a \".\" or \"..\" component")
        }
        if path.utf8.contains(0) { throw SharedPathError(path: path, reason: "it holds a NUL byte") }
        return .shared("/" + components.joined(separator: "/"))
    }

    /// Where the output named `fileName` goes: an `s3://` URL or a path.
    public func location(of fileName: String) -> String {
        locationPrefix + fileName
    }

    /// What every output's location starts with (`s3://BUCKET/PREFIX/`, `DIRECTORY/`): its file
    /// name follows.
    public var locationPrefix: String {
        switch self {
        case .s3(let prefix): return prefix.appending("").description
        case .shared(let directory): return directory == "/" ? "/" : directory + "/"
        }
    }

    /// `s3://BUCKET/PREFIX` or the directory, as a user gave it (normalised).
    public var description: String {
        switch self {
        case .s3(let prefix): return prefix.description
        case .shared(let directory): return directory
        }
    }
}

/// A shared directory that cannot be used, and why.
public struct SharedPathError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "shared output directory \"\(path)\": \(reason)" }
}
