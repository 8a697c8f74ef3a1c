import CPostgres

/// Transactions, batches and the fence.
extension PostgresDatabase {
    /// Runs `body` in one transaction; `.full` commits with `synchronous_commit = on` (the commit
    /// is on the server's disk before it returns), `.normal` with `off` (a server crash may
    /// take the last commits: a photo outcome lost only runs its photo again). Inside a batch, a
    /// `.normal` transaction is a savepoint of the batch's; a `.full` one commits the batch first.
    func transaction(synchronous: JournalSynchronous, _ body: () throws -> Void) throws {
        if transactionIsOpen && !(batchIsOpen && synchronous == .full) {
            // In a batch these go down the pipeline with its writes.
            try execute("SAVEPOINT nested", [])
            do {
                try body()
                try execute("RELEASE nested", [])
            } catch {
                // A failure the pipeline reported has ended the whole transaction already.
                if transactionIsOpen {
                    try? execute("ROLLBACK TO nested", [])
                    try? execute("RELEASE nested", [])
                }
                throw error
            }
            return
        }
        try commitBatch()
        try begin(synchronous)
        do {
            try body()
            try commit()
        } catch {
            rollBack()
            throw error
        }
    }

    func beginBatch() throws {
        guard !batchIsOpen else { return }
        try begin(.normal)
        batchIsOpen = true
    }

    func commitBatch() throws {
        guard batchIsOpen else { return }
        batchIsOpen = false
        do {
            try commit()
        } catch {
            rollBack()
            throw error
        }
    }

    /// BEGIN, the commit's durability and the fence in one round trip.
    private func begin(_ synchronous: JournalSynchronous) throws {
        var sql = "BEGIN; SET LOCAL synchronous_commit = \(synchronous == .full ? "on" : "off")"
        if let fencingToken { sql += "; SELECT photocluster_fence(\(fencingToken))" }
        do {
            try simple(sql)
        } catch {
            // The BEGIN took: a failure after it leaves the session in an aborted transaction.
            rollBack()
            if let failure = error as? Failure, failure.sqlState == Self.fencedState { throw fenced() }
            throw error
        }
        transactionIsOpen = true
    }

    /// Commits; a batch's writes still in the pipeline go with the COMMIT, in one round trip.
    private func commit() throws {
        willCommit?(self)
        if pipelined > 0 {
            try send("COMMIT", [])
            try flushPipeline()
            transactionIsOpen = false
            return
        }
        try reopenIfBroken()
        let result = PQexec(connection, "COMMIT")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw failure(result) }
        transactionIsOpen = false
        // The server answers ROLLBACK to a COMMIT of a transaction that an error aborted.
        if let status = PQcmdStatus(result), String(cString: status) == "ROLLBACK" {
            throw Failure(database: redactedURI, message: "the transaction was rolled back: a statement in it failed (logged before)", sqlState: nil)
        }
    }

    private func rollBack() {
        transactionIsOpen = false
        batchIsOpen = false
        try? flushPipeline()
        if PQstatus(connection) == CONNECTION_OK { PQclear(PQexec(connection, "ROLLBACK")) }
    }

    /// The refusal, with who leads now (read after the rollback).
    private func fenced() -> JournalFenced {
        let row = (try? run("SELECT token, holder FROM leadership WHERE id = 1", []))?.first
        return JournalFenced(
            database: redactedURI, token: fencingToken ?? 0, currentToken: row.map { $0[0].int }, currentHolder: row.map { $0[1].text })
    }
}
