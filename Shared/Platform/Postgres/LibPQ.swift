internal import CLibPQ
import Foundation

// Small helpers around libpq's C API; internal to the module, used only on a
// connection's own queue.

enum LibPQ {
    /// Runs `body` with NUL-terminated copies of the strings (NULL for `nil`),
    /// freed afterwards. libpq copies parameters into its output buffer before
    /// returning, so the copies need not outlive the call.
    static func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) throws -> R) rethrows -> R {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } }
        defer { copies.forEach { free($0) } }
        return try body(copies.map { UnsafePointer($0) })
    }

    /// Runs `body` with libpq's three parameter arrays for `binds`: values
    /// (NUL-terminated text, or a binary array's bytes; NULL for SQL NULL),
    /// lengths (read for binary values only) and formats (0 text, 1
    /// binary), copies freed afterwards.
    static func withParameters<R>(
        _ binds: [PostgresBind],
        _ body: (_ values: [UnsafePointer<CChar>?], _ lengths: [Int32], _ formats: [Int32]) throws -> R
    ) rethrows -> R {
        var copies: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        copies.reserveCapacity(binds.count)
        lengths.reserveCapacity(binds.count)
        formats.reserveCapacity(binds.count)
        defer { copies.forEach { free($0) } }
        for bind in binds {
            if case .binaryArray(let bytes, _) = bind.value {
                let copy = malloc(max(bytes.count, 1))!.assumingMemoryBound(to: CChar.self)
                bytes.withUnsafeBufferPointer { source in
                    if let base = source.baseAddress { memcpy(copy, base, bytes.count) }
                }
                copies.append(copy)
                lengths.append(Int32(bytes.count))
                formats.append(1)
            } else {
                copies.append(bind.text.map { strdup($0) })
                lengths.append(0)
                formats.append(0)
            }
        }
        return try body(copies.map { UnsafePointer($0) }, lengths, formats)
    }

    /// Rejects text that C strings cannot carry: PostgreSQL text cannot hold NUL
    /// either, and silently truncating would store something else.
    static func checkNoNUL(_ binds: [PostgresBind], sql: String) throws {
        if containsNUL(sql) {
            throw PostgresError(.invalidBind, message: "SQL text contains a NUL character")
        }
        // Only text as given can hold NUL: the other values' text forms are
        // hex, digits and ISO dates, and a binary array checked its elements.
        for (index, bind) in binds.enumerated() {
            guard case .text(let text) = bind.value, containsNUL(text) else { continue }
            throw PostgresError(.invalidBind, message: "parameter $\(index + 1) contains a NUL character")
        }
        if binds.count > PostgresQuery.maximumBinds {
            throw PostgresError(.invalidBind, message: "too many parameters (\(binds.count))")
        }
    }

    /// Whether `text` has a NUL byte, by `memchr` over its UTF-8 storage: the
    /// generic `utf8.contains(0)` cost the projector a tenth of its CPU on
    /// bytea and jsonb parameters of a few KB.
    static func containsNUL(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, 0, bytes.count) != nil
        }
    }

    /// A string from a possibly NULL C string.
    static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// The error for a failed result (or for a NULL result), with the server's fields.
    static func error(result: OpaquePointer?, connection: OpaquePointer, file: String = #fileID, line: Int = #line) -> PostgresError {
        let broken = PQstatus(connection) != CONNECTION_OK
        var error = PostgresError(broken ? .connectionClosed : .server, file: file, line: line)
        if let result {
            func field(_ code: Character) -> String? {
                string(PQresultErrorField(result, Int32(code.asciiValue!)))
            }
            error.sqlState = field("C")
            error.message = field("M") ?? string(PQresultErrorMessage(result))
            error.detail = field("D")
            error.hint = field("H")
            error.constraint = field("n")
            error.schema = field("s")
            error.table = field("t")
            error.column = field("c")
            error.severity = field("V")
        }
        if error.message?.isEmpty ?? true {
            error.message = string(PQerrorMessage(connection))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // A server error without SQLSTATE is a client-side failure (e.g. out of memory).
        if error.kind == .server && error.sqlState == nil { error.kind = .client }
        if let state = error.sqlState, PostgresError.timeoutStates.contains(state) { error.kind = .timeout }
        return error
    }

    /// Checks a result's status; on failure clears it and throws.
    static func check(_ result: OpaquePointer?, connection: OpaquePointer) throws -> OpaquePointer {
        guard let result else { throw error(result: nil, connection: connection) }
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY {
            return result
        }
        let failure = error(result: result, connection: connection)
        PQclear(result)
        throw failure
    }

    /// The number of rows a command affected (0 when it does not say).
    static func affectedRows(_ result: OpaquePointer) -> Int {
        string(PQcmdTuples(result)).flatMap { Int($0) } ?? 0
    }

    /// Copies a result's rows out of libpq's memory.
    static func rows(_ result: OpaquePointer) -> [PostgresRow] {
        let rowCount = Int(PQntuples(result))
        let fieldCount = PQnfields(result)
        let metadata = PostgresColumns(
            (0..<fieldCount).map { field in
                PostgresColumn(
                    name: string(PQfname(result, field)) ?? "?column?",
                    dataType: PostgresDataType(rawValue: PQftype(result, field)))
            })
        var rows: [PostgresRow] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<Int32(rowCount) {
            let values: [String?] = (0..<fieldCount).map { field in
                PQgetisnull(result, row, field) == 1 ? nil : String(cString: PQgetvalue(result, row, field))
            }
            rows.append(PostgresRow(metadata: metadata, values: values))
        }
        return rows
    }

    /// Sends one parameterised statement and waits for its result (blocking,
    /// for at most `timeout` of silence from the server).
    static func exec(_ connection: OpaquePointer, _ query: PostgresQuery, timeout: Duration?) throws -> OpaquePointer {
        try checkNoNUL(query.binds, sql: query.sql)
        let types = query.binds.map { Oid($0.dataType.rawValue) }
        let sent = withParameters(query.binds) { values, lengths, formats in
            PQsendQueryParams(connection, query.sql, Int32(query.binds.count), types, values, lengths, formats, 0)
        }
        guard sent == 1 else { throw error(result: nil, connection: connection) }
        return try check(try collect(connection, timeout: timeout), connection: connection)
    }
}
