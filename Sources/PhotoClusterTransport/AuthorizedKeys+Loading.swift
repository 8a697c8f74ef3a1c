import Foundation

/// Reading authorised keys from files and directories.
///
/// A file holds one key per line:
///
///     worker  rJ8…(40 Z85 characters)  render-box-1
///     client  Qx3…                     # alice's laptop
///     admin   Lm0…                     operator
///     Hk2…  # a key without a role (as before roles existed)
///     public-key = "Pp7…"  # the same, as a .pub file writes it
///     grant   Qx3…  write  s3://photos-out/alice   # what alice's key may write in S3
///     grant   Qx3…  read   s3://photos-in          # and read
///     token   client  alice-site  sha256:9f86…     # an HTTP API token (see `APIToken`)
///     grant   token:alice-site  write  s3://photos-out/alice-site
///
/// `ROLE KEY [comment]`, where ROLE is worker, client or admin and the comment may start with
/// `#`; or, without a role, a bare `KEY [# comment]` or `public-key = "KEY" [# comment]`. Blank
/// lines and `#` lines are ignored. A file holding a `secret-key` is refused.
///
/// `grant KEY ACCESS s3://BUCKET[/PREFIX] [# comment]`, where ACCESS is read, write or
/// read-write, gives a key listed with a role (on another line, in any source) an S3 location it
/// may read or write (see `S3Grant`); a key may have many.
///
/// A directory means every `*.pub` file directly inside it (keys without a role, as before), and
/// every `*.pub` file in its `worker/`, `client/` and `admin/` subdirectories, whose keys take
/// that role (`.key` files beside them are never read). Any other visible subdirectory is refused,
/// so a misspelt role is never silently ignored.
///
/// Without a comment, a key from `NAME.pub` is labelled `NAME`, any other key `FILE:LINE`.
extension AuthorizedKeys {
    /// Adds the keys of a file, or of a directory as described above.
    public mutating func load(_ source: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory) else {
            throw CurveKeyError(file: source, .missingFile)
        }
        guard isDirectory.boolValue else { return try loadFile(source, directoryRole: nil) }
        for item in try Self.contents(of: source) {
            if Self.isDirectory(item) {
                guard let role = KeyRole(rawValue: item.lastPathComponent) else {
                    throw CurveKeyError(file: source, .notARoleDirectory(item.lastPathComponent))
                }
                for file in try Self.contents(of: item) where Self.isPublicKeyFile(file) {
                    try loadFile(file, directoryRole: role)
                }
            } else if Self.isPublicKeyFile(item) {
                try loadFile(item, directoryRole: nil)
            }
        }
    }

    /// Every file a source stands for (the file itself, or the files a directory contributes),
    /// with their modification times and sizes: what `KeyReloader` compares to see a change.
    public static func fingerprint(of sources: [URL]) -> [String] {
        sources.flatMap { source -> [URL] in
            guard isDirectory(source) else { return [source] }
            let items = (try? contents(of: source)) ?? []
            return [source] + items.flatMap { item in isDirectory(item) ? [item] + ((try? contents(of: item)) ?? []) : [item] }
        }.map { file in
            let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1
            let size = (attributes?[.size] as? NSNumber)?.intValue ?? -1
            return "\(file.path) \(modified) \(size)"
        }
    }

    private mutating func loadFile(_ file: URL, directoryRole: KeyRole?) throws {
        let isPublicKeyFile = Self.isPublicKeyFile(file)
        for (number, line) in KeyFileSyntax.meaningfulLines(in: try KeyFileSyntax.read(file)) {
            if line.hasPrefix("grant ") || line.hasPrefix("grant\t") {
                try loadGrant(line, number: number, file: file)
                continue
            }
            if line.hasPrefix("token ") || line.hasPrefix("token\t") {
                try loadToken(line, number: number, file: file)
                continue
            }
            let (key, lineRole, comment) = try Self.parse(line, number: number, file: file)
            if let lineRole, let directoryRole, lineRole != directoryRole {
                throw CurveKeyError(file: file, line: number, .roleOutsideItsDirectory(line: lineRole.rawValue, directory: directoryRole.rawValue))
            }
            if let problem = Z85.problem(with: key) { throw CurveKeyError(file: file, line: number, problem) }
            let fallback = isPublicKeyFile ? file.deletingPathExtension().lastPathComponent : "\(file.lastPathComponent):\(number)"
            add(key, label: comment ?? fallback, role: lineRole ?? directoryRole)
        }
    }

    /// `grant KEY ACCESS s3://BUCKET[/PREFIX] [# comment]`.
    private mutating func loadGrant(_ line: String, number: Int, file: URL) throws {
        let words = line.split(maxSplits: 4, whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard words.count >= 4 else { throw CurveKeyError(file: file, line: number, .malformedGrant("it needs a key, an access and an s3:// URL")) }
        if words.count == 5, !words[4].trimmingCharacters(in: .whitespaces).hasPrefix("#") {
            throw CurveKeyError(file: file, line: number, .malformedGrant("one URL per line; a comment starts with #"))
        }
        if APIToken.isPrincipal(words[1]) {
            if let problem = APIToken.nameProblem(String(words[1].dropFirst("token:".count))) {
                throw CurveKeyError(file: file, line: number, .malformedGrant(problem))
            }
        } else if let problem = Z85.problem(with: words[1]) {
            throw CurveKeyError(file: file, line: number, problem)
        }
        guard let access = S3Grant.Access(rawValue: words[2]) else {
            throw CurveKeyError(file: file, line: number, .malformedGrant("'\(words[2])' is not an access: use \(S3Grant.Access.choices)"))
        }
        switch S3Grant.parse(words[3], access: access) {
        case .success(let grant):
            addGrant(grant, to: words[1])
            if grantSources[words[1]] == nil { grantSources[words[1]] = GrantSource(file: file, line: number) }
        case .failure(let problem):
            throw CurveKeyError(file: file, line: number, .malformedGrant(problem.text))
        }
    }

    /// `token ROLE NAME sha256:HEX [# comment]`: the token's holder becomes the principal
    /// `token:NAME` with that role (client or admin).
    private mutating func loadToken(_ line: String, number: Int, file: URL) throws {
        let words = line.split(maxSplits: 4, whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        func malformed(_ reason: String) -> CurveKeyError { CurveKeyError(file: file, line: number, .malformedToken(reason)) }
        guard words.count >= 4 else { throw malformed("it needs a role, a name and a digest") }
        if words.count == 5, !words[4].trimmingCharacters(in: .whitespaces).hasPrefix("#") { throw malformed("a comment starts with #") }
        guard let role = KeyRole(rawValue: words[1]), APIToken.roles.contains(role) else {
            throw malformed("'\(words[1])' is not a token's role: use client or admin")
        }
        if let problem = APIToken.nameProblem(words[2]) { throw malformed(problem) }
        if let problem = APIToken.digestProblem(words[3]) { throw malformed(problem) }
        let principal = APIToken.principal(named: words[2])
        guard entries[principal] == nil else { throw malformed("the name \(words[2]) is listed twice") }
        var entry = Entry(label: words[2], givenRoles: [role])
        entry.isToken = true
        entries[principal] = entry
        tokens[words[3]] = principal
    }

    /// A line's key, its role when it gives one, and its comment.
    private static func parse(_ line: String, number: Int, file: URL) throws -> (key: String, role: KeyRole?, comment: String?) {
        let words = line.split(maxSplits: 2, whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if words.count >= 2 {
            let comment = words.count > 2 ? words[2].drop { $0 == "#" || $0 == " " || $0 == "\t" } : ""
            if let role = KeyRole(rawValue: words[0]) {
                return (words[1], role, comment.isEmpty ? nil : String(comment))
            }
            // A misspelt role before a good key says so, rather than that the line is malformed.
            if words[0].allSatisfy({ $0.isASCII && $0.isLetter }), Z85.problem(with: words[1]) == nil {
                throw CurveKeyError(file: file, line: number, .unknownRole(words[0]))
            }
        }
        let entry = try KeyFileSyntax.entry(onLine: line, number: number, file: file)
        switch entry.field {
        case nil, "public-key": break
        case "secret-key": throw CurveKeyError(file: file, line: number, .secretKeyInPublicFile)
        case let name?: throw CurveKeyError(file: file, line: number, .unknownField(name))
        }
        return (entry.value, nil, entry.comment)
    }

    private static func contents(of directory: URL) throws -> [URL] {
        do {
            // Foundation lists a link to a directory as empty: list where it leads (a Kubernetes
            // Secret volume's role directories are links into its `..data`).
            return try FileManager.default.contentsOfDirectory(
                at: directory.resolvingSymlinksInPath(), includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        } catch {
            throw CurveKeyError(file: directory, .unreadable(error.localizedDescription))
        }
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    private static func isPublicKeyFile(_ url: URL) -> Bool { url.pathExtension == CurveKeyPair.publicFileExtension }
}
