import Foundation

/// Bearer tokens as the dashboard and the HTTP API read them.
public enum BearerToken {
    /// The token of an `Authorization: Bearer TOKEN` header's value, or nil for another scheme.
    public static func parse(authorization value: String?) -> String? {
        guard let value, value.lowercased().hasPrefix("bearer ") else { return nil }
        return String(value.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
    }

    /// Whether `given` is `token`, compared in time that does not depend on where they differ.
    public static func matches(_ given: String, _ token: String) -> Bool {
        let a = Array(given.utf8), b = Array(token.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
