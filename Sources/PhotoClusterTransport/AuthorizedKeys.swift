import Foundation

/// The CURVE public keys allowed to connect, each with a label for logs.
///
/// Sources are files or directories. A file holds one key per line, either bare or as
/// `public-key = "…"` (so a `.pub` file is a valid source); blank lines and `#` lines are ignored,
/// and a trailing `# comment` becomes the key's label. A directory means every `*.pub` file directly
/// inside it (so `.key` files beside them are never read). Without a comment, a key from `NAME.pub`
/// is labelled `NAME`, any other key `FILE:LINE`. A file holding a `secret-key` is refused.
public struct AuthorizedKeys: Sendable, Equatable {
    private var labels: [String: String] = [:]

    public init() {}

    public init(contentsOf sources: [URL]) throws {
        for source in sources { try load(source) }
    }

    public init(contentsOf source: URL) throws {
        try self.init(contentsOf: [source])
    }

    public func contains(_ key: String) -> Bool { labels[key] != nil }

    public func label(for key: String) -> String? { labels[key] }

    public var keys: Set<String> { Set(labels.keys) }

    public var count: Int { labels.count }

    /// Adds a key (a key already present keeps its first label).
    public mutating func insert(_ key: String, label: String) throws {
        try Z85.requireKey(key)
        if labels[key] == nil { labels[key] = label }
    }

    /// Adds the keys of a file, or of every `*.pub` file in a directory.
    public mutating func load(_ source: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory) else {
            throw CurveKeyError(file: source, .missingFile)
        }
        guard isDirectory.boolValue else { return try loadFile(source) }
        let contents: [URL]
        do {
            contents = try FileManager.default.contentsOfDirectory(
                at: source, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles]
            )
        } catch {
            throw CurveKeyError(file: source, .unreadable(error.localizedDescription))
        }
        let publicFiles = contents
            .filter { $0.pathExtension == CurveKeyPair.publicFileExtension }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        for file in publicFiles { try loadFile(file) }
    }

    private mutating func loadFile(_ file: URL) throws {
        let isPublicKeyFile = file.pathExtension == CurveKeyPair.publicFileExtension
        for entry in try KeyFileSyntax.entries(in: KeyFileSyntax.read(file), file: file) {
            switch entry.field {
            case nil, "public-key": break
            case "secret-key": throw CurveKeyError(file: file, line: entry.line, .secretKeyInPublicFile)
            case let name?: throw CurveKeyError(file: file, line: entry.line, .unknownField(name))
            }
            if let problem = Z85.problem(with: entry.value) { throw CurveKeyError(file: file, line: entry.line, problem) }
            let fallback = isPublicKeyFile
                ? file.deletingPathExtension().lastPathComponent
                : "\(file.lastPathComponent):\(entry.line)"
            if labels[entry.value] == nil { labels[entry.value] = entry.comment ?? fallback }
        }
    }
}
