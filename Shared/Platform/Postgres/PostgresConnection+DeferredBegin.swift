internal import CLibPQ
import Synchronization

// A transaction's BEGIN is not a round trip of its own: withTransaction only
// notes it, and the first statement on the connection's queue sends BEGIN and
// itself in one libpq pipeline, one round trip for both. A projector batch at
// low load is a handful of statements, each a round trip and three thread
// wake-ups on a busy machine, so one fewer is a visible share of
// received -> visible.

extension PostgresConnection {
    /// Notes a BEGIN for the next statement to carry.
    func deferBegin() {
        beginDeferred.store(true, ordering: .releasing)
    }

    /// Whether a noted BEGIN was still unsent (and forgets it): then no
    /// statement ran since, and there is no transaction to end.
    func takeDeferredBegin() -> Bool {
        beginDeferred.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// Runs `query` as `LibPQ.exec` does, with a deferred BEGIN ahead of it in
    /// the same round trip. On the connection's queue.
    func exec(_ handle: OpaquePointer, _ query: PostgresQuery) throws -> OpaquePointer {
        guard takeDeferredBegin() else { return try LibPQ.exec(handle, query, timeout: responseTimeout) }
        try LibPQ.checkNoNUL(query.binds, sql: query.sql)
        guard PQenterPipelineMode(handle) == 1 else { throw LibPQ.error(result: nil, connection: handle) }
        let types = query.binds.map { Oid($0.dataType.rawValue) }
        let sent =
            PQsendQueryParams(handle, "BEGIN", 0, nil, nil, nil, nil, 0) == 1
            && LibPQ.withParameters(query.binds) { values, lengths, formats in
                PQsendQueryParams(handle, query.sql, Int32(query.binds.count), types, values, lengths, formats, 0)
            } == 1
            && PQpipelineSync(handle) == 1
        guard sent else {
            // Half a pipeline cannot be drained: the session is unusable.
            let error = LibPQ.error(result: nil, connection: handle)
            markBroken()
            throw error
        }
        let timeout = responseTimeout
        // Each statement yields its result, then NULL; the sync point ends the pipeline.
        func next() throws -> OpaquePointer {
            try LibPQ.awaitResult(handle, timeout: timeout)
            guard let result = PQgetResult(handle) else {
                markBroken()
                throw LibPQ.error(result: nil, connection: handle)
            }
            return result
        }
        func endOfStatement() throws {
            try LibPQ.awaitResult(handle, timeout: timeout)
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        let begin = try next()
        let beginFailed = PQresultStatus(begin) != PGRES_COMMAND_OK
        let beginError = beginFailed ? LibPQ.error(result: begin, connection: handle) : nil
        PQclear(begin)
        try endOfStatement()
        let answer = try next()
        do {
            try endOfStatement()
            let sync = try next()
            let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
            PQclear(sync)
            guard synced, PQexitPipelineMode(handle) == 1 else {
                markBroken()
                throw PostgresError(.client, message: "pipeline did not end at its sync point")
            }
        } catch {
            PQclear(answer)
            throw error
        }
        if let beginError {
            PQclear(answer)
            throw beginError
        }
        return try LibPQ.check(answer, connection: handle)
    }

    /// Sends a deferred BEGIN on its own, for a statement that cannot carry
    /// it (a script in the simple query protocol). On the connection's queue.
    func sendDeferredBegin(_ handle: OpaquePointer) throws {
        guard takeDeferredBegin() else { return }
        PQclear(try LibPQ.check(LibPQ.execSimple(handle, "BEGIN", timeout: responseTimeout), connection: handle))
    }
}
