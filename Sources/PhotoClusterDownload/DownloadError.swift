/// Why a download failed.
public struct DownloadError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case httpStatus(Int), timeout, tooLarge, tooManyRedirects, unsupportedScheme, invalidURL
        case connection, cancelled, other
        /// Refused by `DownloadLimits.policy`, for the first request or a redirect.
        case policy
    }

    public let kind: Kind
    /// Human-readable detail, e.g. "HTTP 404 Not Found" or "timed out after 2.0 s".
    public let message: String
    /// The URL that was requested.
    public let url: String

    public init(kind: Kind, message: String, url: String) {
        self.kind = kind
        self.message = message
        self.url = url
    }

    /// Whether trying again later may succeed: connection failures, timeouts, HTTP 5xx and 429.
    public var isTransient: Bool {
        switch kind {
        case .connection, .timeout: return true
        case .httpStatus(let code): return code >= 500 || code == 429
        case .tooLarge, .tooManyRedirects, .unsupportedScheme, .invalidURL, .cancelled, .policy, .other: return false
        }
    }

    public var description: String { "\(message) (\(url))" }

    /// The error a caller reports for a request it gave up on itself.
    public static func cancelledByCaller(url: String) -> DownloadError {
        DownloadError(kind: .cancelled, message: "cancelled", url: url)
    }
}
