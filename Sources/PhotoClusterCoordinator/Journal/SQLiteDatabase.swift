import CSQLite
import Foundation

/// A SQLite database file: just what the journal needs (statements with bound values, rows,
/// transactions). Used only from the coordinator's loop thread. In WAL mode, `normal` commits
/// survive a killed process but a power cut may take the last ones; `full` flushes the log at
/// every commit (a few milliseconds on a disk).
final class SQLiteDatabase: JournalDatabase {
    struct Failure: Error, CustomStringConvertible {
        let path: String
        let message: String
        var description: String { "journal \(path): \(message)" }
    }

    typealias Value = JournalValue
    typealias Synchronous = JournalSynchronous

    let path: String
    private var handle: OpaquePointer?
    /// Statements already compiled, by their SQL: the journal runs the same few thousands of
    /// times a second, and compiling one cost more than running it (each is reset after use).
    private var prepared: [String: OpaquePointer] = [:]
    /// Distinct statements kept compiled, at most; others are compiled each time.
    static let preparedKept = 64
    /// Runs inside each transaction just before it commits (tests read its settings there).
    var willCommit: ((SQLiteDatabase) -> Void)?
    /// A transaction is open across calls, from `beginBatch` to `commitBatch`.
    private(set) var batchIsOpen = false

    init(path: String) throws {
        self.path = path
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            throw Failure(path: path, message: message)
        }
        sqlite3_busy_timeout(handle, 5000)
        // WAL with NORMAL sync survives a killed process; only a power loss may lose the last
        // commits. Commits that someone is told of go `full` (see `transaction`).
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
    }

    deinit {
        try? commitBatch()
        for statement in prepared.values { sqlite3_finalize(statement) }
        sqlite3_close(handle)
    }

    /// Runs one statement and returns its rows.
    @discardableResult
    func query(_ sql: String, _ values: [Value]) throws -> [[Value]] {
        var statement = prepared[sql]
        let kept = statement != nil || prepared.count < Self.preparedKept
        if statement == nil {
            guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { throw failure() }
            if kept { prepared[sql] = statement }
        }
        defer {
            if kept {
                sqlite3_reset(statement)
                sqlite3_clear_bindings(statement)
            } else {
                sqlite3_finalize(statement)
            }
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .int(let number): result = sqlite3_bind_int64(statement, index, number)
            case .double(let number): result = sqlite3_bind_double(statement, index, number)
            case .text(let text): result = sqlite3_bind_text(statement, index, text, -1, Self.transient)
            case .blob(let data):
                result = data.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), Self.transient) }
            case .null: result = sqlite3_bind_null(statement, index)
            }
            guard result == SQLITE_OK else { throw failure() }
        }
        var rows: [[Value]] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return rows }
            guard step == SQLITE_ROW else { throw failure() }
            rows.append((0..<sqlite3_column_count(statement)).map { column(statement, $0) })
        }
    }

    /// Runs `body` in one transaction; `synchronous: .full` makes this commit durable before
    /// it returns (the setting cannot change inside a transaction, so it is set around it).
    /// Inside a batch, a `.normal` transaction is a savepoint of the batch's; a `.full` one
    /// commits the batch first and flushes it with its own.
    func transaction(synchronous: Synchronous, _ body: () throws -> Void) throws {
        if batchIsOpen && synchronous == .normal {
            try execute("SAVEPOINT nested")
            do {
                try body()
                try execute("RELEASE nested")
            } catch {
                try? execute("ROLLBACK TO nested")
                try? execute("RELEASE nested")
                throw error
            }
            return
        }
        try commitBatch()
        if synchronous != .normal { try execute("PRAGMA synchronous = \(synchronous.rawValue)") }
        defer { if synchronous != .normal { try? execute("PRAGMA synchronous = NORMAL") } }
        try execute("BEGIN IMMEDIATE")
        do {
            try body()
            willCommit?(self)
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Opens a transaction that the writes from now on share until `commitBatch`: one commit
    /// for many small writes (a coordinator's turn of the loop) instead of one each.
    func beginBatch() throws {
        guard !batchIsOpen else { return }
        try execute("BEGIN IMMEDIATE")
        batchIsOpen = true
    }

    /// Commits the batch's writes (rolled back if the commit fails).
    func commitBatch() throws {
        guard batchIsOpen else { return }
        batchIsOpen = false
        do {
            willCommit?(self)
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    private func column(_ statement: OpaquePointer?, _ index: Int32) -> Value {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .int(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .double(sqlite3_column_double(statement, index))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(statement, index)))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    private func failure() -> Failure {
        Failure(path: path, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
