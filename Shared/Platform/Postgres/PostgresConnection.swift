internal import CLibPQ
import Dispatch
import Foundation
import Synchronization

/// One session with a PostgreSQL server, owning a libpq `PGconn`.
///
/// libpq calls block, so each connection owns a serial `DispatchQueue` on
/// which every call on its `PGconn` runs; async methods suspend on a
/// continuation meanwhile, keeping Swift's cooperative pool free. Calls from
/// several tasks are therefore safe, but they interleave, so a connection
/// should have one owner at a time (``PostgresPool`` hands them out that way).
/// The connection is closed in `deinit` or by ``close()``.
public final class PostgresConnection: @unchecked Sendable {
    // @unchecked Sendable: `handle`, `prepared` and `liftedStatementTimeout`
    // are read and written only on `queue` (a serial queue), and `closed` is
    // atomic; other stored properties are immutable.

    /// The settings this connection was opened with.
    public let configuration: PostgresConfiguration
    private let queue: DispatchQueue
    private var handle: OpaquePointer?
    /// Names of statements prepared on this session, with their SQL.
    var prepared: [String: String] = [:]
    /// A statement limit set for a while by ``withLiftedLimits(_:_:)`` (migrations).
    var liftedStatementTimeout: Duration?
    private let closed = Atomic<Bool>(false)
    /// A BEGIN that ``withTransaction(isolation:_:)`` asked for and no
    /// statement has carried yet (see PostgresConnection+DeferredBegin.swift).
    let beginDeferred = Atomic<Bool>(false)

    private init(configuration: PostgresConfiguration, queue: DispatchQueue, handle: OpaquePointer) {
        self.configuration = configuration
        self.queue = queue
        self.handle = handle
    }

    deinit {
        // No queued work can remain: every queued block holds a reference.
        if let handle { PQfinish(handle) }
    }

    /// Opens a connection.
    /// - Parameter configuration: where and how to connect.
    /// - Returns: an open connection.
    /// - Throws: ``PostgresError`` of kind `.connectionFailed`.
    public static func connect(_ configuration: PostgresConfiguration) async throws -> PostgresConnection {
        let queue = DispatchQueue(label: "storefront.postgres.connection")
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try open(configuration, queue: queue) })
            }
        }
    }

    private static func open(_ configuration: PostgresConfiguration, queue: DispatchQueue) throws -> PostgresConnection {
        let pairs = configuration.keywordPairs()
        for (keyword, value) in pairs where keyword.utf8.contains(0) || value.utf8.contains(0) {
            throw PostgresError(.invalidConfiguration, message: "connection parameter \(keyword) contains NUL")
        }
        // Keyword arrays, NULL-terminated; expand_dbname = 0 so a database
        // name is never parsed as a conninfo string.
        let handle = LibPQ.withCStrings(pairs.map(\.0) + [nil]) { keywords in
            LibPQ.withCStrings(pairs.map(\.1) + [nil]) { values in
                PQconnectdbParams(keywords, values, 0)
            }
        }
        guard let handle else { throw PostgresError(.connectionFailed, message: "libpq could not allocate a connection") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = LibPQ.string(PQerrorMessage(handle))?.trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(handle)
            throw PostgresError(.connectionFailed, message: message)
        }
        // NOTICEs (e.g. "table already exists, skipping") would otherwise go to stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        return PostgresConnection(configuration: configuration, queue: queue, handle: handle)
    }

    /// Whether the connection is closed or was found broken; it cannot be used again.
    public var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Closes the connection. Later calls throw `.connectionClosed`.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                if let handle = self.handle { PQfinish(handle) }
                self.handle = nil
                self.closed.store(true, ordering: .releasing)
                continuation.resume()
            }
        }
    }

    /// Runs `work` with the `PGconn` on this connection's queue.
    func withHandle<T: Sendable>(_ work: @escaping @Sendable (OpaquePointer) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                guard let handle = self.handle else {
                    continuation.resume(throwing: PostgresError(.connectionClosed, message: "connection is closed"))
                    return
                }
                let result = Result { try work(handle) }
                if case .failure(let error as PostgresError) = result, error.kind == .timeout, error.sqlState == nil {
                    // The server went silent mid-protocol: nothing more can be read or sent on this session.
                    PQfinish(handle)
                    self.handle = nil
                    self.closed.store(true, ordering: .releasing)
                } else if PQstatus(handle) != CONNECTION_OK {
                    self.closed.store(true, ordering: .releasing)
                }
                continuation.resume(with: result)
            }
        }
    }

    /// How long to wait for the server to say anything (on `queue` only).
    var responseTimeout: Duration? {
        configuration.limits.responseTimeout(statementTimeout: liftedStatementTimeout ?? configuration.limits.statementTimeout)
    }

    // MARK: - Queries

    /// Runs a statement and returns its rows.
    /// - Parameter query: SQL with bind parameters; see ``PostgresQuery``.
    /// - Throws: ``PostgresError`` (`.server` with SQLSTATE, `.connectionClosed`, `.invalidBind`).
    public func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await withHandle { handle in
            let result = try self.exec(handle, query)
            defer { PQclear(result) }
            return LibPQ.rows(result)
        }
    }

    /// Runs a statement and returns the number of rows it affected.
    /// - Parameter query: SQL with bind parameters; see ``PostgresQuery``.
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func execute(_ query: PostgresQuery) async throws -> Int {
        try await withHandle { handle in
            let result = try self.exec(handle, query)
            defer { PQclear(result) }
            return LibPQ.affectedRows(result)
        }
    }

    /// Runs a statement and returns its command tag (`COMMIT`, `ROLLBACK`, ...).
    func command(_ query: PostgresQuery) async throws -> String {
        try await withHandle { handle in
            let result = try self.exec(handle, query)
            defer { PQclear(result) }
            return LibPQ.string(PQcmdStatus(result)) ?? ""
        }
    }

    /// Runs trusted SQL that may hold several statements (simple query
    /// protocol, no parameters). Used for migrations.
    func runScript(_ sql: String) async throws {
        try await withHandle { handle in
            try LibPQ.checkNoNUL([], sql: sql)
            try self.sendDeferredBegin(handle)
            // The last statement's result is kept; an error stops the script.
            PQclear(try LibPQ.check(LibPQ.execSimple(handle, sql, timeout: self.responseTimeout), connection: handle))
        }
    }

    // MARK: - Health

    /// Whether the session looks usable: libpq reports it open and idle, and
    /// if the idle socket has unexpected input (a server about to close it)
    /// or `roundTrip` is set, an empty query succeeds.
    func checkHealth(roundTrip: Bool) async -> Bool {
        (try? await withHandle { handle in
            guard PQstatus(handle) == CONNECTION_OK, PQtransactionStatus(handle) == PQTRANS_IDLE else { return false }
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            let readable = poll(&descriptor, 1, 0) != 0
            guard roundTrip || readable else { return true }
            guard let result = try LibPQ.execSimple(handle, "", timeout: self.responseTimeout) else { return false }
            defer { PQclear(result) }
            return PQresultStatus(result) == PGRES_EMPTY_QUERY && PQstatus(handle) == CONNECTION_OK
        }) ?? false
    }

    /// Marks the connection unusable, e.g. after a failed health check.
    func markBroken() { closed.store(true, ordering: .releasing) }

    /// Whether the session is inside a transaction block (any state but idle).
    func inTransaction() async throws -> Bool {
        try await withHandle { self.beginDeferred.load(ordering: .acquiring) || PQtransactionStatus($0) != PQTRANS_IDLE }
    }
}

extension PostgresConnection {
    /// Leaves the session idle for its next owner: an open transaction (the
    /// owner forgot or failed to end it) is rolled back; if that fails, the
    /// connection is marked broken so the pool discards it.
    func resetAfterUse() async {
        let clean =
            (try? await withHandle { handle -> Bool in
                // A BEGIN never sent began nothing.
                self.beginDeferred.store(false, ordering: .releasing)
                if PQtransactionStatus(handle) == PQTRANS_IDLE { return true }
                if let result = try LibPQ.execSimple(handle, "ROLLBACK", timeout: self.responseTimeout) { PQclear(result) }
                return PQtransactionStatus(handle) == PQTRANS_IDLE
            }) ?? false
        if !clean { markBroken() }
    }
}
