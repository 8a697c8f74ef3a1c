import Foundation
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
