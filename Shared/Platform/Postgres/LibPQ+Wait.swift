internal import CLibPQ
import Foundation

// Waiting for the server with a deadline. libpq's blocking calls (PQexec,
// PQgetResult) wait forever on a socket that stays open but silent, which is
// what a hung proxy or NAT looks like: the kernel's keepalives and user
// timeout see a live peer. Every wait for a result goes through here instead.

extension LibPQ {
    /// Blocks until libpq can return the next result without blocking, or
    /// until the server has been silent for `timeout` (`nil`: forever).
    /// - Throws: ``PostgresError`` of kind `.timeout` when the server stayed
    ///   silent; the caller must close the session, whose protocol state is unknown.
    static func awaitResult(_ connection: OpaquePointer, timeout: Duration?) throws {
        // Input already read (or a broken socket) lets PQgetResult answer at once.
        guard PQconsumeInput(connection) == 1 else { return }
        var silentSince = ContinuousClock.now
        while PQisBusy(connection) == 1 {
            var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
            let waitMilliseconds: Int32
            if let timeout {
                let left = timeout - (ContinuousClock.now - silentSince)
                guard left > .zero else { throw silence(timeout) }
                waitMilliseconds = Int32(clamping: PostgresSessionLimits.milliseconds(left))
            } else {
                waitMilliseconds = -1
            }
            let ready = poll(&descriptor, 1, waitMilliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return // The socket is unusable; PQgetResult reports why.
            }
            if ready == 0 { continue } // The loop re-checks the deadline.
            silentSince = .now
            guard PQconsumeInput(connection) == 1 else { return }
        }
    }

    /// Sends nothing more and reads every result of the command in flight,
    /// keeping the first failure or else the last result (what `PQexec`
    /// returns), each wait bounded by `timeout`.
    static func collect(_ connection: OpaquePointer, timeout: Duration?) throws -> OpaquePointer? {
        var kept: OpaquePointer?
        do {
            while true {
                try awaitResult(connection, timeout: timeout)
                guard let next = PQgetResult(connection) else { break }
                if let previous = kept {
                    if failed(previous) {
                        PQclear(next)
                        continue
                    }
                    PQclear(previous)
                }
                kept = next
            }
        } catch {
            if let kept { PQclear(kept) }
            throw error
        }
        return kept
    }

    /// `PQexec` with a bounded wait: simple query protocol, so `sql` may hold several statements.
    static func execSimple(_ connection: OpaquePointer, _ sql: String, timeout: Duration?) throws -> OpaquePointer? {
        guard PQsendQuery(connection, sql) == 1 else { return nil }
        return try collect(connection, timeout: timeout)
    }

    private static func failed(_ result: OpaquePointer) -> Bool {
        let status = PQresultStatus(result)
        return status == PGRES_FATAL_ERROR || status == PGRES_BAD_RESPONSE
    }

    private static func silence(_ timeout: Duration) -> PostgresError {
        PostgresError(
            .timeout,
            message: "the server said nothing for \(PostgresSessionLimits.milliseconds(timeout)) ms; the connection is closed")
    }
}
