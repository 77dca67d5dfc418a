extension PostgresConnection {
    /// Runs `body` inside a transaction, then `beforeCommit` in the same
    /// transaction, after everything `body` wrote: a last step that must see
    /// (and commit with) the body's writes, kept apart from the body's code.
    /// A throw from either rolls everything back.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: as ``withTransaction(isolation:_:)``, or `beforeCommit`'s error.
    public func withTransaction<Result>(
        isolation: isolated (any Actor)? = #isolation,
        beforeCommit: (PostgresConnection) async throws -> Void,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await withTransaction { connection in
            let result = try await body(connection)
            try await beforeCommit(connection)
            return result
        }
    }
}
