import Foundation

/// A CURVE key or key file that cannot be used: which file and line (when there is one) and what is wrong.
///
/// Messages never quote a key, so a secret cannot leak into a log through them.
public struct CurveKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        case missingFile
        case unreadable(String)
        /// The line is neither `name = "value"` nor a bare key (with an optional `# comment`).
        case malformedLine(String)
        case unknownField(String)
        case duplicateField(String)
        case missingField(String)
        /// A key must be 40 Z85 characters.
        case wrongLength(Int)
        case notZ85(String)
        /// The file's `public-key` is not the one its `secret-key` derives.
        case publicKeyMismatch
        /// A secret key file readable or writable by group or others (`mode` is the permission bits).
        case permissionsTooOpen(mode: Int)
        /// A `secret-key` in a file that should only hold public keys.
        case secretKeyInPublicFile
        case alreadyExists
        case writeFailed(String)
        /// A `ROLE KEY` line whose first word is not a role.
        case unknownRole(String)
        /// A line giving a role other than the one of the role directory its file is in.
        case roleOutsideItsDirectory(line: String, directory: String)
        /// A subdirectory of an authorized-keys directory not named after a role.
        case notARoleDirectory(String)
        /// A `grant` line that is not `grant KEY ACCESS s3://BUCKET[/PREFIX]`.
        case malformedGrant(String)
        /// A `grant` for a key no line lists with a role.
        case grantForUnlistedKey
        /// A `token` line that is not `token ROLE NAME sha256:HEX`, or a name listed twice.
        case malformedToken(String)
    }

    public let file: URL?
    public let line: Int?
    public let problem: Problem

    public init(file: URL? = nil, line: Int? = nil, _ problem: Problem) {
        self.file = file
        self.line = line
        self.problem = problem
    }

    public var description: String {
        var location = file?.path ?? ""
        if let line { location += location.isEmpty ? "line \(line)" : ":\(line)" }
        return location.isEmpty ? problem.text : "\(location): \(problem.text)"
    }
}

extension CurveKeyError.Problem {
    var text: String {
        switch self {
        case .missingFile: return "no such file"
        case .unreadable(let reason): return "cannot read: \(reason)"
        case .malformedLine(let reason): return "malformed line: \(reason)"
        case .unknownField(let name): return "unknown field '\(name)'"
        case .duplicateField(let name): return "'\(name)' given twice"
        case .missingField(let name): return "no '\(name)' field"
        case .wrongLength(let count): return "key is \(count) characters, expected 40 (Z85)"
        case .notZ85(let reason): return "key is not Z85: \(reason)"
        case .publicKeyMismatch: return "public-key does not match secret-key"
        case .permissionsTooOpen(let mode):
            return "secret key file has mode \(String(mode, radix: 8)), expected 600 (chmod 600 it)"
        case .secretKeyInPublicFile: return "holds a secret-key where only public keys belong (wrong file?)"
        case .alreadyExists: return "already exists (refusing to overwrite a key)"
        case .writeFailed(let reason): return "cannot write: \(reason)"
        case .unknownRole(let word): return "'\(word)' is not a role: use \(KeyRole.choices)"
        case .roleOutsideItsDirectory(let line, let directory):
            return "the line says \(line) but the file is in the \(directory)/ directory, whose keys are \(directory) keys"
        case .notARoleDirectory(let name):
            return "subdirectory '\(name)' is not a role: the subdirectories of an authorized-keys directory are \(KeyRole.choices) (each holding that role's .pub files)"
        case .malformedGrant(let reason):
            return "malformed grant: \(reason); expected `grant KEY read|write|read-write s3://BUCKET[/PREFIX] [# comment]`"
        case .grantForUnlistedKey:
            return "a grant for a key that no line lists with a role: list the key (e.g. `client KEY name`) as well"
        case .malformedToken(let reason):
            return "malformed token: \(reason); expected `token client|admin NAME sha256:HEX [# comment]` (as `cluster token create` writes it)"
        }
    }
}
