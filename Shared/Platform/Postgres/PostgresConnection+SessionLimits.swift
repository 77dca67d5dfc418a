extension PostgresConnection {
    /// Runs `body` with this session's statement and lock limits raised to
    /// `timeout` (the client's response timeout follows), then restores the
    /// limits the session was opened with. For work that is legitimately
    /// long, such as a migration building an index, or waiting for another
    /// process's migration to finish.
    /// - Parameters:
    ///   - timeout: the statement and lock limit meanwhile; `.zero` lifts them.
    ///   - body: the work.
    /// - Throws: ``PostgresError`` from setting or restoring the limits, or the body's error.
    public func withLiftedLimits<Result>(
        _ timeout: Duration, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let milliseconds = String(PostgresSessionLimits.milliseconds(timeout))
        try await execute(
            "SELECT set_config('statement_timeout', \(milliseconds), false), set_config('lock_timeout', \(milliseconds), false)")
        try await setLiftedStatementTimeout(timeout)
        let result: Result
        do {
            result = try await body(self)
        } catch {
            _ = try? await restoreLimits()
            throw error
        }
        try await restoreLimits()
        return result
    }

    /// Back to the values sent at connect time (`RESET` returns to them).
    private func restoreLimits() async throws {
        try await runScript("RESET statement_timeout; RESET lock_timeout")
        try await setLiftedStatementTimeout(nil)
    }

    private func setLiftedStatementTimeout(_ timeout: Duration?) async throws {
        try await withHandle { _ in self.liftedStatementTimeout = timeout }
    }
}
