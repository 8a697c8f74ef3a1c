/// One photo of a job: a unique name, where to fetch it, and an optional filter chain of its own.
public struct ManifestEntry: Sendable, Equatable {
    public var name: String
    public var url: String
    /// Filter specs (`name:key=value,…`) that replace the job's chain for this photo; nil: the job's chain.
    public var filters: [String]?

    public init(name: String, url: String, filters: [String]? = nil) {
        self.name = name
        self.url = url
        self.filters = filters
    }
}

/// The photos of a job, in manifest order (the order defines the viewport's indices).
public struct Manifest: Sendable, Equatable {
    public enum Format: String, Sendable { case propertyList = "property list", json = "JSON", text = "plain text" }

    public var entries: [ManifestEntry]
    public var format: Format

    public init(entries: [ManifestEntry], format: Format) {
        self.entries = entries
        self.format = format
    }
}

/// Why a manifest was refused: names the file, the entry (line or key) and what is wrong.
public struct ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    /// "line 3", "key \"kitten\"", "entry 2"; nil when the whole file is at fault.
    public let entry: String?
    public let reason: String

    public init(file: String, entry: String? = nil, reason: String) {
        self.file = file
        self.entry = entry
        self.reason = reason
    }

    public var description: String {
        if let entry { return "\(file): \(entry): \(reason)" }
        return "\(file): \(reason)"
    }
}
