import Foundation

/// `--state postgres://…` (or `postgresql://…`): a connection URI as libpq takes it. Passwords
/// belong in PGPASSWORD or ~/.pgpass, which libpq reads; one written in the URI is never shown.
public enum PostgresURI {
    /// Whether `state` names a PostgreSQL database rather than a directory.
    public static func isDatabase(_ state: String) -> Bool {
        let lowered = state.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// The URI with any password replaced by `***`: in the user part (`user:secret@host`) and
    /// in a `password=` parameter. Logs and errors show only this.
    public static func redacted(_ uri: String) -> String {
        var text = uri
        if let scheme = text.range(of: "://") {
            let authorityEnd = text[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? text.endIndex
            if let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@"),
                let colon = text[scheme.upperBound..<at].firstIndex(of: ":")
            {
                text.replaceSubrange(text.index(after: colon)..<at, with: "***")
            }
        }
        guard let query = text.firstIndex(of: "?") else { return text }
        let parameters = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { parameter in
            parameter.lowercased().hasPrefix("password=") ? "password=***" : String(parameter)
        }
        return String(text[...query]) + parameters.joined(separator: "&")
    }
}
