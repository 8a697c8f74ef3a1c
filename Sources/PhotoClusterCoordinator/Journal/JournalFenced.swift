/// A journal write refused because this coordinator's lease is no longer current: another
/// coordinator acquired the lease (a newer fencing token) while this one was paused or cut off.
/// The transaction was rolled back whole; nothing of it was written. The coordinator must stop
/// acting as the leader.
public struct JournalFenced: Error, CustomStringConvertible {
    /// The database, its password hidden.
    public let database: String
    /// The token this coordinator wrote with.
    public let token: Int64
    /// The token and holder of the lease now (nil: no lease row).
    public let currentToken: Int64?
    public let currentHolder: String?

    public var description: String {
        let now = currentToken.map { "token \($0), held by \(currentHolder ?? "nobody"), leads now" } ?? "nobody holds the lease"
        return "journal \(database): fenced: this coordinator's lease (token \(token)) is no longer current; \(now). Nothing was written; this coordinator must stop leading"
    }
}
