import Foundation
import PhotoClusterTransport

/// Who an HTTP API token stands for (`cluster token create`).
public struct TokenHolder: Sendable, Equatable {
    /// `token:NAME`: what the token's jobs are owned by, and its grants name.
    public let principal: String
    public let name: String
    public let isAdmin: Bool
}

/// HTTP API tokens, looked up on the HTTP server's threads.
extension CoordinatorNode {
    /// Whether the coordinator checks who connects (CURVE): without, the HTTP API is as open as
    /// its client socket.
    public var checksKeys: Bool { configuration.curve != nil }

    /// The holder of `token` in the authorized keys in force, or nil for a token not listed
    /// (never made, or revoked). Any thread.
    public func tokenHolder(of token: String) -> TokenHolder? {
        tokenKeys.withLock { keys in
            guard let keys, let principal = keys.principal(forToken: token), let entry = keys.entry(for: principal) else { return nil }
            return TokenHolder(principal: principal, name: entry.label, isAdmin: keys.isAdmin(principal))
        }
    }
}
