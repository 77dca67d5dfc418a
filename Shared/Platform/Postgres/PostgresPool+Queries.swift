extension PostgresPool {
    /// Runs a statement on a pooled connection and returns its rows.
    /// - Throws: ``PostgresError``.
    public func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await withConnection { try await $0.query(query) }
    }

    /// Runs a statement on a pooled connection and returns the affected row count.
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func execute(_ query: PostgresQuery) async throws -> Int {
        try await withConnection { try await $0.execute(query) }
    }

    /// Runs `body` in a transaction on one pooled connection: BEGIN, then
    /// COMMIT, or ROLLBACK when `body` throws.
    /// - Throws: the body's error or ``PostgresError``.
    public func withTransaction<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await withConnection { connection in
            try await connection.withTransaction(body)
        }
    }

    /// Runs a pipelined batch on one pooled connection; see
    /// ``PostgresConnection/pipeline(statements:batch:inTransaction:)``.
    /// - Throws: ``PostgresError`` with ``PostgresError/batchIndex`` for a failed item.
    public func pipeline(
        statements: [PostgresPreparedStatement], batch: [PostgresBatchItem],
        inTransaction: Bool = true
    ) async throws -> [Int] {
        try await withConnection { try await $0.pipeline(statements: statements, batch: batch, inTransaction: inTransaction) }
    }
}
