import Foundation

/// What the journal needs of a database: statements with bound values (`?` placeholders), rows,
/// transactions and the loop's batches. `SQLiteDatabase` (a file under `--state DIR`) and
/// `PostgresDatabase` (`--state postgres://…`) implement it, so `Journal` runs one set of SQL on
/// either. Each is used from one thread only: the coordinator's loop.
protocol JournalDatabase: AnyObject {
    /// Runs one statement whose rows nobody reads (a database may send it without waiting and
    /// report its failure when the transaction commits).
    func execute(_ sql: String, _ values: [JournalValue]) throws
    /// Runs one statement and returns its rows.
    @discardableResult
    func query(_ sql: String, _ values: [JournalValue]) throws -> [[JournalValue]]
    /// Runs `body` in one transaction; `.full` makes its commit durable before it returns.
    /// Inside a batch, a `.normal` transaction is part of the batch's; a `.full` one commits the
    /// batch first.
    func transaction(synchronous: JournalSynchronous, _ body: () throws -> Void) throws
    /// Opens a transaction that the writes from now on share until `commitBatch`.
    func beginBatch() throws
    /// Commits the batch's writes (rolled back if the commit fails).
    func commitBatch() throws
    var batchIsOpen: Bool { get }
}

extension JournalDatabase {
    func execute(_ sql: String, _ values: [JournalValue]) throws {
        _ = try query(sql, values)
    }

    func execute(_ sql: String) throws {
        try execute(sql, [])
    }

    @discardableResult
    func query(_ sql: String) throws -> [[JournalValue]] {
        try query(sql, [])
    }

    func transaction(_ body: () throws -> Void) throws {
        try transaction(synchronous: .normal, body)
    }
}

/// A value bound to a `?` of a statement, or read from a column.
enum JournalValue: Equatable {
    case int(Int64)
    case double(Double)
    case text(String)
    case blob(Data)
    case null
}

extension JournalValue {
    var int: Int64 { if case .int(let v) = self { return v } else { return 0 } }
    var double: Double { if case .double(let v) = self { return v } else if case .int(let v) = self { return Double(v) } else { return 0 } }
    var text: String { if case .text(let v) = self { return v } else { return "" } }
    var blob: Data { if case .blob(let v) = self { return v } else { return Data() } }
}

/// How far a commit goes before it returns. `normal`: a killed process loses nothing, a power
/// cut (SQLite) or a server crash (PostgreSQL, `synchronous_commit = off`) may take the last
/// commits; `full`: what has been committed stays.
enum JournalSynchronous: String {
    case normal = "NORMAL"
    case full = "FULL"
}
