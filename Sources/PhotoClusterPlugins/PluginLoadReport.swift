import PhotoClusterCore

/// A plugin, or one of its filters, that was not loaded, and why.
public struct PluginRefusal: Sendable, Equatable, CustomStringConvertible {
    /// The plugin file (or the plugin directory, when it could not be listed).
    public let file: String
    public let reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    public var description: String { "\(file): \(reason)" }
}

/// What loading plugins added to a registry, and what it refused.
public struct PluginLoadReport: Sendable {
    public var loaded: [FilterDescriptor]
    public var refused: [PluginRefusal]

    public init(loaded: [FilterDescriptor] = [], refused: [PluginRefusal] = []) {
        self.loaded = loaded
        self.refused = refused
    }

    public mutating func append(_ other: PluginLoadReport) {
        loaded += other.loaded
        refused += other.refused
    }
}
