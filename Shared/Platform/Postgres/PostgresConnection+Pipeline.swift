internal import CLibPQ

extension PostgresConnection {
    /// Most items accepted in one batch; bounds the memory libpq buffers.
    public static let maximumBatchSize = 100_000

    /// Runs many prepared-statement executions in one round trip using libpq's
    /// pipeline mode, and returns each item's affected row count.
    ///
    /// Statements not yet prepared on this connection are prepared in the same
    /// pipeline. With `inTransaction` the batch is wrapped in BEGIN/COMMIT
    /// (unless the connection is already inside a transaction, which the batch
    /// then joins). If any item fails, nothing of the batch is kept and the
    /// thrown error's ``PostgresError/batchIndex`` names the failed item.
    ///
    /// - Parameters:
    ///   - statements: the statements the batch uses.
    ///   - batch: the executions, in order.
    ///   - inTransaction: wrap the batch in an explicit transaction.
    /// - Returns: affected rows per item, in batch order.
    /// - Throws: ``PostgresError``.
    public func pipeline(
        statements: [PostgresPreparedStatement], batch: [PostgresBatchItem],
        inTransaction: Bool = true
    ) async throws -> [Int] {
        guard batch.count <= Self.maximumBatchSize else {
            throw PostgresError(.invalidBind, message: "batch of \(batch.count) items exceeds \(Self.maximumBatchSize)")
        }
        var byName: [String: PostgresPreparedStatement] = [:]
        for statement in statements {
            try LibPQ.checkNoNUL([], sql: statement.sql + statement.name)
            if let other = byName[statement.name], other != statement {
                throw PostgresError(.invalidBind, message: "two statements named \(statement.name)")
            }
            byName[statement.name] = statement
        }
        for (index, item) in batch.enumerated() {
            guard byName[item.statement] != nil else {
                var error = PostgresError(.invalidBind, message: "batch item uses unknown statement \(item.statement)")
                error.batchIndex = index
                throw error
            }
            do { try LibPQ.checkNoNUL(item.binds, sql: "") } catch var error as PostgresError {
                error.batchIndex = index
                throw error
            }
        }
        let known = byName
        return try await withHandle { handle in
            try self.runPipeline(handle, statements: known, batch: batch, inTransaction: inTransaction)
        }
    }

    /// What each result read back from the pipeline belongs to.
    private enum Slot {
        case prepare(PostgresPreparedStatement)
        case begin
        case item(Int)
        case commit
    }

    /// Runs on the connection's queue.
    private func runPipeline(
        _ handle: OpaquePointer, statements: [String: PostgresPreparedStatement],
        batch: [PostgresBatchItem], inTransaction: Bool
    ) throws -> [Int] {
        // A deferred BEGIN opens the caller's transaction, which the batch joins.
        let joinsDeferredBegin = takeDeferredBegin()
        let ownTransaction = inTransaction && !joinsDeferredBegin && PQtransactionStatus(handle) == PQTRANS_IDLE
        var toPrepare: [PostgresPreparedStatement] = []
        for statement in statements.values.sorted(by: { $0.name < $1.name }) {
            if let sql = prepared[statement.name] {
                guard sql == statement.sql else {
                    throw PostgresError(.invalidBind, message: "statement \(statement.name) was prepared with other SQL")
                }
            } else {
                toPrepare.append(statement)
            }
        }

        guard PQenterPipelineMode(handle) == 1 else { throw LibPQ.error(result: nil, connection: handle) }
        var slots: [Slot] = []
        slots.reserveCapacity(batch.count + toPrepare.count + 2)
        // A failed send means the connection is unusable; the pipeline cannot be drained.
        func sent(_ ok: Int32) throws {
            guard ok == 1 else {
                let error = LibPQ.error(result: nil, connection: handle)
                markBroken()
                throw error
            }
        }
        if joinsDeferredBegin {
            try sent(PQsendQueryParams(handle, "BEGIN", 0, nil, nil, nil, nil, 0))
            slots.append(.begin)
        }
        for statement in toPrepare {
            let types = statement.parameterTypes.map { Oid($0.rawValue) }
            try sent(PQsendPrepare(handle, statement.name, statement.sql, Int32(types.count), types.isEmpty ? nil : types))
            slots.append(.prepare(statement))
        }
        if ownTransaction {
            try sent(PQsendQueryParams(handle, "BEGIN", 0, nil, nil, nil, nil, 0))
            slots.append(.begin)
        }
        for (index, item) in batch.enumerated() {
            try sent(
                LibPQ.withParameters(item.binds) { values, lengths, formats in
                    PQsendQueryPrepared(handle, item.statement, Int32(values.count), values, lengths, formats, 0)
                })
            slots.append(.item(index))
        }
        if ownTransaction {
            try sent(PQsendQueryParams(handle, "COMMIT", 0, nil, nil, nil, nil, 0))
            slots.append(.commit)
        }
        try sent(PQpipelineSync(handle))

        // Each query yields one result then NULL; after an error the rest are
        // PIPELINE_ABORTED; the sync point ends the batch.
        var counts = [Int](repeating: 0, count: batch.count)
        var firstError: PostgresError?
        let timeout = responseTimeout
        for slot in slots {
            try LibPQ.awaitResult(handle, timeout: timeout)
            guard let result = PQgetResult(handle) else {
                markBroken()
                throw LibPQ.error(result: nil, connection: handle)
            }
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK {
                switch slot {
                case .prepare(let statement): prepared[statement.name] = statement.sql
                case .item(let index): counts[index] = LibPQ.affectedRows(result)
                case .commit:
                    if LibPQ.string(PQcmdStatus(result)) != "COMMIT", firstError == nil {
                        firstError = PostgresError(.server, message: "batch was rolled back at COMMIT", sqlState: "25P02")
                    }
                case .begin: break
                }
            } else if status != PGRES_PIPELINE_ABORTED, firstError == nil {
                var error = LibPQ.error(result: result, connection: handle)
                if case .item(let index) = slot { error.batchIndex = index }
                if case .prepare(let statement) = slot {
                    error.message = "preparing \(statement.name): " + (error.message ?? "")
                }
                firstError = error
            }
            PQclear(result)
            try LibPQ.awaitResult(handle, timeout: timeout)
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        try LibPQ.awaitResult(handle, timeout: timeout)
        guard let sync = PQgetResult(handle) else {
            markBroken()
            throw firstError ?? LibPQ.error(result: nil, connection: handle)
        }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        guard synced, PQexitPipelineMode(handle) == 1 else {
            markBroken()
            throw firstError ?? PostgresError(.client, message: "pipeline did not end at its sync point")
        }
        if let firstError {
            // Our own transaction is now aborted; end it so the session is reusable.
            // A caller's transaction is left aborted for the caller to roll back.
            if ownTransaction && PQtransactionStatus(handle) != PQTRANS_IDLE {
                if let result = try? LibPQ.execSimple(handle, "ROLLBACK", timeout: timeout) { PQclear(result) }
            }
            throw firstError
        }
        return counts
    }
}
