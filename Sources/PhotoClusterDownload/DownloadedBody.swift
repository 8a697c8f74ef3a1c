import Foundation

/// A completed transfer.
public struct DownloadedBody: Sendable {
    public let data: Data
    /// The URL the body came from, after redirects.
    public let finalURL: String
    /// Status of the final response (below 400; higher codes are reported as errors).
    public let httpStatus: Int

    public init(data: Data, finalURL: String, httpStatus: Int) {
        self.data = data
        self.finalURL = finalURL
        self.httpStatus = httpStatus
    }
}
