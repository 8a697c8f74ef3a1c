/// Bounds on what a manifest may hold, so a hostile file cannot exhaust memory.
public struct ManifestLimits: Sendable {
    public var maxBytes: Int
    public var maxEntries: Int
    public var maxNameLength: Int
    public var maxURLLength: Int

    public init(maxBytes: Int = 64 << 20, maxEntries: Int = 1_000_000, maxNameLength: Int = 255, maxURLLength: Int = 8192) {
        self.maxBytes = maxBytes
        self.maxEntries = maxEntries
        self.maxNameLength = maxNameLength
        self.maxURLLength = maxURLLength
    }
}
