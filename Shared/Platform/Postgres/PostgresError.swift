/// An error from this module: a server error with its SQLSTATE, a lost
/// connection, a decoding mismatch, a pool timeout, and so on.
///
/// `description` is deliberately generic (kind and SQLSTATE only) so that it
/// can end up in a log line or HTTP response without leaking SQL, bound values
/// or server messages, which often quote values. Everything else is in the
/// properties and in `debugDescription`.
public struct PostgresError: Error, Sendable {
    /// What went wrong, broadly.
    public enum Kind: Sendable, Hashable {
        /// The configuration or URL is invalid.
        case invalidConfiguration
        /// Connecting to the server failed.
        case connectionFailed
        /// The connection was lost or is closed; it cannot be used again.
        case connectionClosed
        /// The server rejected a statement; see ``PostgresError/sqlState``.
        case server
        /// A limit of ``PostgresSessionLimits`` fired: the server cancelled
        /// the statement (`statement_timeout`, SQLSTATE 57014), gave up on a
        /// lock (`lock_timeout`, 55P03) or ended an idle transaction (25P03),
        /// or the server said nothing within the client's response timeout
        /// (no SQLSTATE; the connection is then closed). Nothing of the
        /// statement or its transaction was kept: retrying is safe.
        case timeout
        /// A value could not be bound (for example text containing NUL).
        case invalidBind
        /// A column could not be decoded as the requested type.
        case decoding
        /// No pooled connection became free within the acquire timeout.
        case poolTimeout
        /// The pool has been shut down.
        case poolClosed
        /// A migration could not be applied or does not match what was applied.
        case migration
        /// libpq behaved unexpectedly (out of memory, protocol surprise).
        case client
    }

    /// What went wrong, broadly.
    public var kind: Kind
    /// The five-character SQLSTATE, such as `23505` for a unique violation.
    public var sqlState: String?
    /// The server's primary message, or a client-side reason. May quote values.
    public var message: String?
    /// The server's DETAIL field. May quote values.
    public var detail: String?
    /// The server's HINT field.
    public var hint: String?
    /// Name of the violated constraint, if any.
    public var constraint: String?
    /// Schema of the object involved, if any.
    public var schema: String?
    /// Table involved, if any.
    public var table: String?
    /// Column involved, if any.
    public var column: String?
    /// Severity (`ERROR`, `FATAL`, `PANIC`), not localised.
    public var severity: String?
    /// In a pipelined batch, the index of the item that failed.
    public var batchIndex: Int?
    /// Source file where the error was made.
    public var file: String
    /// Source line where the error was made.
    public var line: Int

    /// Creates an error; mostly used inside this module.
    public init(
        _ kind: Kind, message: String? = nil, sqlState: String? = nil,
        file: String = #fileID, line: Int = #line
    ) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.file = file
        self.line = line
    }
}

extension PostgresError {
    /// SQLSTATEs of the server-side limits: `query_canceled` (this client
    /// never cancels, so a statement timeout), `lock_not_available` (a lock
    /// timeout; also NOWAIT, which this code base does not use) and
    /// `idle_in_transaction_session_timeout`.
    static let timeoutStates: Set<String> = ["57014", "55P03", "25P03"]

    /// Whether retrying the same work may succeed: a limit fired, or the
    /// connection broke or could not be made (a new one may work).
    public var isTransient: Bool {
        switch kind {
        case .timeout, .connectionClosed, .connectionFailed, .poolTimeout: true
        default: false
        }
    }
}

extension PostgresError: CustomStringConvertible, CustomDebugStringConvertible {
    /// A generic summary: kind, SQLSTATE and batch index; never SQL, values or server text.
    public var description: String {
        var text = "PostgreSQL error: \(kind)"
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        if let batchIndex { text += " at batch item \(batchIndex)" }
        return text
    }

    /// Everything known, for developers; may contain values quoted by the server.
    public var debugDescription: String {
        var parts = [description]
        if let severity { parts.append("severity: \(severity)") }
        if let message { parts.append("message: \(message)") }
        if let detail { parts.append("detail: \(detail)") }
        if let hint { parts.append("hint: \(hint)") }
        if let schema { parts.append("schema: \(schema)") }
        if let table { parts.append("table: \(table)") }
        if let column { parts.append("column: \(column)") }
        if let constraint { parts.append("constraint: \(constraint)") }
        parts.append("at \(file):\(line)")
        return parts.joined(separator: "; ")
    }
}
