extension PostgresConnection {
    /// Runs `body` inside a transaction: BEGIN, then COMMIT, or ROLLBACK when
    /// `body` throws (the error is rethrown). BEGIN travels with the body's
    /// first statement, so it costs no round trip of its own.
    ///
    /// - Parameter body: work to do with this connection inside the transaction.
    /// - Returns: what `body` returns.
    /// - Throws: the body's error, or ``PostgresError`` from BEGIN/COMMIT. A
    ///   COMMIT that the server turns into a rollback (because a statement in
    ///   the transaction failed and the error was swallowed) throws too.
    public func withTransaction<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        // Sent with the body's first statement, in the same round trip.
        deferBegin()
        let result: Result
        do {
            result = try await body(self)
        } catch {
            // The body's error is the one worth reporting; a failed ROLLBACK
            // means the session is gone, and the server rolls back anyway.
            if !takeDeferredBegin() { _ = try? await execute("ROLLBACK") }
            throw error
        }
        // A body that ran no statement began no transaction.
        if takeDeferredBegin() { return result }
        let tag = try await command("COMMIT")
        guard tag == "COMMIT" else {
            throw PostgresError(
                .server, message: "transaction was rolled back at COMMIT because a statement in it failed",
                sqlState: "25P02")
        }
        return result
    }
}
