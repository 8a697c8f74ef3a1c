import CPostgres

/// A batch's writes in libpq's pipeline mode: each is sent without waiting for its answer, and
/// the answers are read together when the batch commits (its COMMIT goes down the same pipeline)
/// or when something needs rows. A turn of the coordinator's loop that records hundreds of photos
/// then costs two round trips to the server (BEGIN with its fence, then everything else), not
/// one per photo. The first failure in the pipeline aborts the rest of it and the transaction;
/// it is thrown when the pipeline is read.
extension PostgresDatabase {
    /// Answers the pipeline may owe before it is read: the server stops reading while the
    /// answers it writes find our socket's buffer full, and a connection in blocking mode that
    /// keeps sending would then wait for ever. A thousand answers are a few tens of kilobytes.
    static let pipelineDepth = 1000

    /// Queues one statement (prepared first, in the pipeline too, when it is new).
    func send(_ sql: String, _ values: [JournalValue]) throws {
        try reopenIfBroken()
        if pipelined >= Self.pipelineDepth { try flushPipeline() }
        if PQpipelineStatus(connection) == PQ_PIPELINE_OFF {
            guard PQenterPipelineMode(connection) == 1 else { throw failure(nil) }
        }
        let types = values.map(\.postgresType)
        let key = Self.key(sql, types)
        let count = Int32(values.count)
        var name = prepared[key]
        if name == nil && !values.isEmpty && prepared.count < Self.preparedKept {
            let newName = nextStatementName()
            guard PQsendPrepare(connection, newName, Self.numbered(sql), count, types) == 1 else { throw failure(nil) }
            pipelined += 1
            prepared[key] = newName
            preparedInPipeline.append(key)
            name = newName
        }
        let sent = PostgresParameters(values).withPointers { pointers, lengths, formats in
            if let name {
                return PQsendQueryPrepared(connection, name, count, pointers, lengths, formats, 1)
            }
            return PQsendQueryParams(connection, Self.numbered(sql), count, types, pointers, lengths, formats, 1)
        }
        guard sent == 1 else { throw failure(nil) }
        pipelined += 1
    }

    /// Reads every answer the pipeline owes and leaves pipeline mode; throws the first failure.
    /// A failure aborted the transaction it was in: that is rolled back at once (the batch ends
    /// there, and the writes after it start a new one).
    func flushPipeline() throws {
        guard PQpipelineStatus(connection) != PQ_PIPELINE_OFF else { return }
        var firstFailure: Failure?
        if PQpipelineSync(connection) == 1 {
            var previousWasEnd = false
            while true {
                guard let result = PQgetResult(connection) else {
                    // Each statement's answers end with a NULL; two in a row: the connection failed.
                    if previousWasEnd { break }
                    previousWasEnd = true
                    continue
                }
                previousWasEnd = false
                let status = PQresultStatus(result)
                if status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_PIPELINE_ABORTED
                    && status != PGRES_PIPELINE_SYNC && firstFailure == nil
                {
                    firstFailure = failure(result)
                }
                PQclear(result)
                if status == PGRES_PIPELINE_SYNC { break }
            }
        } else {
            firstFailure = failure(nil)
        }
        pipelined = 0
        PQexitPipelineMode(connection)
        if PQstatus(connection) != CONNECTION_OK && firstFailure == nil { firstFailure = failure(nil) }
        guard let firstFailure else {
            preparedInPipeline = []
            return
        }
        // A statement prepared in a failed pipeline may not exist.
        for key in preparedInPipeline { prepared[key] = nil }
        preparedInPipeline = []
        if transactionIsOpen && PQstatus(connection) == CONNECTION_OK { PQclear(PQexec(connection, "ROLLBACK")) }
        transactionIsOpen = false
        batchIsOpen = false
        throw firstFailure
    }
}
