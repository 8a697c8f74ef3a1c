import Foundation

/// Adds and removes API tokens in an authorized-keys file (`cluster token`), keeping every other
/// line as it was. The file is replaced whole (written beside it, then renamed), and only once
/// the result loads, so a coordinator that reloads it never reads half a change.
public struct TokenFile {
    public let file: URL

    public init(_ file: URL) {
        self.file = file
    }

    /// A token listed in the file.
    public struct Listing: Equatable, Sendable {
        public let name: String
        public let role: KeyRole
        public let comment: String?
    }

    /// Lists a new token `name` with `role`, and returns the token's text (shown once: the file
    /// keeps only its digest). The file is made (mode 644: it holds no secret) when missing.
    public func create(name: String, role: KeyRole, comment: String?) throws -> String {
        if let problem = APIToken.nameProblem(name) { throw CurveKeyError(file: file, .malformedToken(problem)) }
        guard APIToken.roles.contains(role) else { throw CurveKeyError(file: file, .malformedToken("a token is a client's or an admin's, not a \(role.rawValue)'s")) }
        let existing = FileManager.default.fileExists(atPath: file.path) ? try KeyFileSyntax.read(file) : ""
        guard !(try list(in: existing)).contains(where: { $0.name == name }) else {
            throw CurveKeyError(file: file, .malformedToken("a token named \(name) is listed already; revoke it first (`cluster token revoke --name \(name)`) or choose another name"))
        }
        let token = APIToken.generate()
        var line = "token \(role.rawValue) \(name) \(APIToken.digest(of: token))"
        if let comment, !comment.isEmpty { line += "  # " + comment.replacingOccurrences(of: "\n", with: " ") }
        try replace(with: existing + (existing.isEmpty || existing.hasSuffix("\n") ? "" : "\n") + line + "\n")
        return token
    }

    /// Removes token `name` and its grants; false when no such token is listed.
    public func revoke(name: String) throws -> Bool {
        let text = try KeyFileSyntax.read(file)
        let principal = APIToken.principal(named: name)
        var removed = false
        let kept = text.split(separator: "\n", omittingEmptySubsequences: false).filter { raw in
            let words = raw.split(whereSeparator: { $0 == " " || $0 == "\t" })
            let isToken = words.count >= 3 && words[0] == "token" && words[2] == name
            let isGrant = words.count >= 2 && words[0] == "grant" && words[1] == principal
            removed = removed || isToken
            return !(isToken || isGrant)
        }
        guard removed else { return false }
        try replace(with: kept.joined(separator: "\n"))
        return true
    }

    /// The tokens the file lists.
    public func list() throws -> [Listing] {
        try list(in: KeyFileSyntax.read(file))
    }

    private func list(in text: String) throws -> [Listing] {
        KeyFileSyntax.meaningfulLines(in: text).compactMap { _, line in
            let words = line.split(maxSplits: 4, whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard words.count >= 4, words[0] == "token", let role = KeyRole(rawValue: words[1]) else { return nil }
            let comment = words.count > 4 ? String(words[4].drop { $0 == "#" || $0 == " " }) : nil
            return Listing(name: words[2], role: role, comment: comment)
        }
    }

    /// Writes `text` in place of the file once it loads as authorized keys.
    private func replace(with text: String) throws {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(getpid()).tmp")
        do {
            try Data(text.utf8).write(to: temporary)
            let mode = (try? FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int) ?? 0o644
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: temporary.path)
            // Its own lines must load; grants for keys listed in other sources are the coordinator's to check.
            var keys = AuthorizedKeys()
            try keys.load(temporary)
            guard rename(temporary.path, file.path) == 0 else { throw CurveKeyError(file: file, .writeFailed(String(cString: strerror(errno)))) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            if let keyError = error as? CurveKeyError, keyError.file == temporary {
                throw CurveKeyError(file: file, line: keyError.line, keyError.problem)
            }
            throw error
        }
    }
}
