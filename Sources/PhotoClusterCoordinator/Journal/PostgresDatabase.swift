import CPostgres
import Foundation

/// One libpq connection to a PostgreSQL database: what the journal needs (statements with bound
/// values, rows, transactions, the loop's batches), and the fencing of a leader's writes.
///
/// Used from one thread only, the coordinator's loop (a `LeaseStore` gets a connection of its
/// own); every call blocks until the server answers, as SQLite's do. libpq rather than an
/// event-loop client on purpose: the journal is synchronous on the loop thread, and libpq reads
/// PGPASSWORD, ~/.pgpass, PGSSLMODE and the rest like every PostgreSQL tool, so a password never
/// has to be on the command line.
///
/// Values go out in binary with explicit types (int8, float8, text, bytea); rows come back in
/// binary, decoded by column type. `?` placeholders become `$1…$n`, so the journal's SQL serves
/// both databases. A connection that broke (a restarted server) fails the statement that found
/// it broken and is opened again on the next use.
public final class PostgresDatabase: JournalDatabase {
    public struct Failure: Error, CustomStringConvertible {
        /// The database, its password hidden.
        public let database: String
        public let message: String
        /// The server's SQLSTATE, where it sent one.
        public let sqlState: String?
        public var description: String { "journal \(database): \(message)" }
    }

    /// The URI as logs and errors show it (no password).
    public let redactedURI: String
    // The state below is this connection's, changed only by the thread that uses it; its
    // extensions (transactions, the pipeline) in the other PostgresDatabase+ files use it too.
    var connection: OpaquePointer?
    /// Statements prepared on this connection, by their types and SQL: the journal runs the same
    /// few thousands of times a second. Cleared when the connection is opened again.
    var prepared: [String: String] = [:]
    /// The number in the next prepared statement's name (never reused on a connection).
    var nextStatement = 0
    /// Distinct statements kept prepared, at most; others are parsed each time.
    static let preparedKept = 64
    /// While set, every write transaction first checks, in the same transaction, that the lease
    /// row still carries this token (`photocluster_fence`, which locks the row `FOR KEY SHARE`, so a
    /// takeover waits for the transaction and the transaction for a takeover); a mismatch rolls
    /// the transaction back and throws `JournalFenced`.
    public var fencingToken: Int64?
    /// A transaction is open across calls, from `beginBatch` to `commitBatch`.
    public internal(set) var batchIsOpen = false
    /// A transaction is open: a batch's or `transaction`'s.
    var transactionIsOpen = false
    /// Results the pipeline still owes (writes of a batch sent without waiting; see
    /// `PostgresDatabase+Pipeline`), and statements prepared in it (forgotten if it fails).
    var pipelined = 0
    var preparedInPipeline: [String] = []
    /// Runs inside each transaction just before it commits (tests read its settings there).
    var willCommit: ((PostgresDatabase) -> Void)?

    /// How long the server lets this connection sit in an open transaction. A coordinator paused
    /// (SIGSTOP) or cut off in the middle of a batch would otherwise keep the lease row locked
    /// and a standby could never take over; after this the server ends the session, its open
    /// writes are lost, and on waking the coordinator finds itself fenced.
    static let idleInTransactionTimeout = "5s"
    /// This connection's (see `limitIdleTransactions`); set again whenever it is reopened.
    private var idleInTransactionTimeout = PostgresDatabase.idleInTransactionTimeout

    /// SQLSTATE that `photocluster_fence` raises.
    static let fencedState = "PCF01"

    public init(uri: String) throws {
        redactedURI = PostgresURI.redacted(uri)
        connection = PQconnectdb(uri)
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = lastError()
            PQfinish(connection)
            connection = nil
            throw Failure(
                database: redactedURI, message: "cannot connect: \(message) (check the URI, that the server runs, and PGPASSWORD or ~/.pgpass)",
                sqlState: nil)
        }
        try configureSession()
    }

    deinit {
        if batchIsOpen { try? commitBatch() }
        PQfinish(connection)
    }

    /// Runs a statement whose rows nobody reads: inside a batch it is sent without waiting
    /// for the server (pipelined; an error surfaces when the batch commits).
    func execute(_ sql: String, _ values: [JournalValue]) throws {
        if batchIsOpen {
            try send(sql, values)
        } else {
            try query(sql, values)
        }
    }

    /// Runs one statement and returns its rows. A write outside any transaction, while a
    /// fencing token is set, runs in a fenced transaction of its own.
    @discardableResult
    func query(_ sql: String, _ values: [JournalValue]) throws -> [[JournalValue]] {
        if fencingToken != nil && !transactionIsOpen && !Self.isRead(sql) {
            var rows: [[JournalValue]] = []
            try transaction(synchronous: .full) { rows = try run(sql, values) }
            return rows
        }
        return try run(sql, values)
    }

    /// Runs one statement, never fenced (the lease store's own statements).
    @discardableResult
    func unfencedQuery(_ sql: String, _ values: [JournalValue] = []) throws -> [[JournalValue]] {
        try run(sql, values)
    }

    /// Runs statements as one simple query (several separated by `;`, no values, text results
    /// ignored): transaction control and schema, in one round trip.
    func simple(_ sql: String) throws {
        try reopenIfBroken()
        try flushPipeline()
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default: throw failure(result)
        }
    }

    func run(_ sql: String, _ values: [JournalValue]) throws -> [[JournalValue]] {
        try reopenIfBroken()
        try flushPipeline()
        let types = values.map(\.postgresType)
        let parameters = PostgresParameters(values)
        let result: OpaquePointer? = try parameters.withPointers { pointers, lengths, formats in
            let count = Int32(values.count)
            let key = Self.key(sql, types)
            if let name = prepared[key] {
                return PQexecPrepared(connection, name, count, pointers, lengths, formats, 1)
            }
            let numbered = Self.numbered(sql)
            guard !values.isEmpty, prepared.count < Self.preparedKept else {
                return PQexecParams(connection, numbered, count, types, pointers, lengths, formats, 1)
            }
            let name = nextStatementName()
            let preparation = PQprepare(connection, name, numbered, count, types)
            defer { PQclear(preparation) }
            guard PQresultStatus(preparation) == PGRES_COMMAND_OK else { throw failure(preparation) }
            prepared[key] = name
            return PQexecPrepared(connection, name, count, pointers, lengths, formats, 1)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK: return []
        case PGRES_TUPLES_OK: return try rows(of: result)
        default: throw failure(result)
        }
    }

    func nextStatementName() -> String {
        nextStatement += 1
        return "journal_\(nextStatement)"
    }

    /// A prepared statement's key: its parameter types and SQL.
    static func key(_ sql: String, _ types: [Oid]) -> String {
        types.map(String.init).joined(separator: ",") + ";" + sql
    }

    private func rows(of result: OpaquePointer?) throws -> [[JournalValue]] {
        let columns = PQnfields(result)
        let types = (0..<columns).map { PQftype(result, $0) }
        for (column, type) in types.enumerated() where !PostgresParameters.readable.contains(type) {
            throw Failure(
                database: redactedURI, message: "column \(column + 1) has type \(type) (an OID), which the journal does not read; cast it in the query",
                sqlState: nil)
        }
        return (0..<PQntuples(result)).map { row in
            (0..<columns).map { column in
                guard PQgetisnull(result, row, column) == 0 else { return .null }
                let bytes = UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: Int(PQgetlength(result, row, column)))
                return PostgresParameters.decode(bytes, type: types[Int(column)])
            }
        }
    }

    /// `?` placeholders as `$1…$n`, outside quoted strings and identifiers.
    static func numbered(_ sql: String) -> String {
        var text = ""
        var number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                text.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                text.append(character)
            } else if character == "?" {
                number += 1
                text += "$\(number)"
            } else {
                text.append(character)
            }
        }
        return text
    }

    /// Reads: what needs no fence.
    private static func isRead(_ sql: String) -> Bool {
        let start = sql.drop(while: \.isWhitespace).prefix(6).uppercased()
        return start.hasPrefix("SELECT") || start.hasPrefix("SHOW")
    }

    /// A connection the server closed (restarted, or ended for idling in a transaction) is
    /// opened again; what was open on it (a batch, prepared statements) is gone.
    func reopenIfBroken() throws {
        guard PQstatus(connection) != CONNECTION_OK else { return }
        forgetSessionState()
        PQreset(connection)
        guard PQstatus(connection) == CONNECTION_OK else {
            throw Failure(
                database: redactedURI, message: "cannot reach the database: \(lastError()); the next write tries again (check that the server runs)",
                sqlState: nil)
        }
        try configureSession()
    }

    private func configureSession() throws {
        // Notices (such as "relation already exists, skipping") would go to stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        try simple("SET idle_in_transaction_session_timeout = '\(idleInTransactionTimeout)'")
    }

    /// Lets the server end this connection's transactions after `seconds` idle, instead of
    /// `idleInTransactionTimeout`: a leader's lease length, so that a frozen leader holds the
    /// lease row no longer than its lease would have lasted.
    public func limitIdleTransactions(to seconds: Double) throws {
        idleInTransactionTimeout = "\(max(1, Int((seconds * 1000).rounded())))ms"
        try simple("SET idle_in_transaction_session_timeout = '\(idleInTransactionTimeout)'")
    }

    func forgetSessionState() {
        prepared = [:]
        pipelined = 0
        preparedInPipeline = []
        batchIsOpen = false
        transactionIsOpen = false
    }

    func failure(_ result: OpaquePointer?) -> Failure {
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        var message = result.flatMap { PQresultErrorMessage($0) }.map { String(cString: $0) } ?? ""
        if message.isEmpty { message = lastError() }
        message = message.trimmingCharacters(in: .whitespacesAndNewlines)
        // 08: connection exceptions; 57P01-57P03: the server shuts down or ended this session.
        let ended = state.map { $0.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains($0) } ?? false
        if PQstatus(connection) != CONNECTION_OK || ended {
            forgetSessionState()
            message = "the connection to the database was lost (\(message)); this write is lost and the next one opens it again"
        }
        return Failure(database: redactedURI, message: message, sqlState: state)
    }

    func lastError() -> String {
        connection.flatMap { PQerrorMessage($0) }.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "out of memory"
    }
}
