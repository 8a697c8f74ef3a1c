/// Bounds applied to every transfer of a `DownloadEngine`.
public struct DownloadLimits: Sendable {
    /// Seconds allowed to establish a connection (0 or less: curl's default of 300 s).
    public var connectTimeout: Double
    /// Seconds allowed for the whole transfer, redirects included (0 or less: no limit).
    public var totalTimeout: Double
    /// Largest body accepted, in bytes (after content decoding).
    public var maxBytes: Int
    /// Redirects followed before failing with `.tooManyRedirects`.
    public var maxRedirects: Int
    /// URL schemes allowed for the first request and for every redirect (case-insensitive).
    public var allowedSchemes: [String]
    /// Hosts and addresses the first request and every redirect may reach.
    public var policy: DownloadPolicy

    public init(
        connectTimeout: Double = 5, totalTimeout: Double = 30, maxBytes: Int = 64 << 20,
        maxRedirects: Int = 5, allowedSchemes: [String] = ["http", "https"], policy: DownloadPolicy = .standard
    ) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxBytes = maxBytes
        self.maxRedirects = maxRedirects
        self.allowedSchemes = allowedSchemes
        self.policy = policy
    }
}

extension DownloadLimits {
    var normalizedSchemes: [String] { allowedSchemes.map { $0.lowercased() } }

    static func milliseconds(_ seconds: Double) -> Int {
        seconds > 0 ? max(1, Int((seconds * 1000).rounded())) : 0
    }
}
