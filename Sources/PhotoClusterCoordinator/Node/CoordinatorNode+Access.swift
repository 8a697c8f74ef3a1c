import Foundation
import PhotoClusterCore
import PhotoClusterProto
import PhotoClusterScheduling
import PhotoClusterStorage
import PhotoClusterTransport

/// Who is asking about jobs.
enum Requester {
    /// An in-process caller (the dashboard, which guards itself): every job.
    case `operator`
    /// A client, by the CURVE key its request came with (nil without CURVE).
    case client(key: String?)

    var isOperator: Bool {
        if case .operator = self { return true }
        return false
    }

    /// For log lines: the client's key with its label and roles.
    func description(_ keys: AuthorizedKeys?) -> String {
        switch self {
        case .operator: return "the operator"
        case .client(let key?): return keys?.describe(key) ?? "key \(key)"
        case .client(nil): return "a client without a key"
        }
    }
}

/// Job ownership and where jobs may write.
extension CoordinatorNode {
    /// A job belongs to the key that submitted it: only that key and admin keys may see its
    /// photos or act on it. Without CURVE every client may; in-process callers always may.
    func may(_ requester: Requester, accessJobOwnedBy owner: String?) -> Bool {
        guard case .client(let key) = requester, let keys = authorizedKeys else { return true }
        guard let key else { return false }
        return keys.isAdmin(key) || owner == key
    }

    /// Opens a new job's output directory: under `--output-root` when there is one (refusing
    /// a directory that leaves it), else where the client says.
    func openOutputDirectory(_ requested: String) throws -> JobDirectory {
        try Self.openOutputDirectory(requested, root: outputRoot)
    }

    /// The same, on any thread (a writer's: opening may block on a stuck file system).
    static func openOutputDirectory(_ requested: String, root outputRoot: OutputRoot?) throws -> JobDirectory {
        if let outputRoot { return try outputRoot.openDirectory(requested) }
        guard requested.hasPrefix("/") else {
            throw OutputDirectoryProblem(escapes: false, message: "the output directory must be an absolute path, got \"\(requested)\"")
        }
        return try OutputRoot.openUnconfined(requested)
    }

    /// At start, for a job restored unfinished: its directory is opened again, under today's
    /// root. When that fails its photos fail as they finish, with the reason.
    func reopenOutputDirectory(of job: Job) {
        do {
            outputDirectories[job.id] = try openOutputDirectory(job.outputDirectory.path)
        } catch {
            outputProblems[job.id] = "\(error)"
            log(.error, "job \(job.id): its output directory cannot be opened again: \(error)", job: job.id)
        }
    }
}

/// Which S3 locations a job may use.
extension CoordinatorNode {
    /// What keys without a grant may do with S3: `--s3-default-access`, or, when it was not
    /// given, no S3 with CURVE (where each key can be given its own) and any S3 without it.
    var s3DefaultAccess: S3DefaultAccess {
        configuration.s3DefaultAccess ?? (authorizedKeys == nil ? .allow : .deny)
    }

    /// Why `submit` may not write its `s3://` output or read its `s3://` photos, or nil when it
    /// may: each location must lie within the key's grants (see `S3Grant`). Nothing is sent
    /// to a worker before this passes.
    func storageProblem(_ submit: Photocluster_V1_SubmitJob, place: OutputPlace?, key: String?) -> String? {
        let inputs = submit.photos.lazy.map(\.url).filter { S3Location.isS3URL($0) }
        var writesS3: S3Location?
        if case .s3(let prefix)? = place { writesS3 = prefix }
        guard writesS3 != nil || !inputs.isEmpty else { return nil }
        guard let keys = authorizedKeys, let key else {
            // Without CURVE there is no key to grant anything to: the coordinator's setting decides.
            guard s3DefaultAccess == .deny else { return nil }
            return "this coordinator gives no S3 access to clients (--s3-default-access deny); write to a directory instead of s3://, and read photos over http(s)"
        }
        if let prefix = writesS3,
           let refusal = keys.s3Refusal(of: key, bucket: prefix.bucket, objectKey: prefix.key, for: .write, defaultAccess: s3DefaultAccess) {
            return "cannot write \(refusal)"
        }
        // Each distinct bucket and directory is checked once: a manifest of a million photos
        // from one prefix costs one look-up per prefix.
        var checked = Set<String>()
        for url in inputs {
            guard let object = try? S3Location(parsing: url) else { continue }  // the worker fails it as a bad URL
            let folder = object.bucket + "/" + (object.key.split(separator: "/").dropLast().joined(separator: "/"))
            if keys.s3Grants(of: key).isEmpty && checked.contains(folder) { continue }
            if let refusal = keys.s3Refusal(of: key, bucket: object.bucket, objectKey: object.key, for: .read, defaultAccess: s3DefaultAccess) {
                return "cannot read \(refusal)"
            }
            checked.insert(folder)
        }
        return nil
    }
}
