/// One parameter holding a column of values, for set-based statements
/// (`INSERT ... SELECT ... FROM unnest($1::text[], $2::timestamptz[], ...)`):
/// a whole batch's rows in one execution instead of one per row.
///
/// Sent as PostgreSQL's array text form (`{"a","b",NULL}`) with the type
/// left to the statement's cast, so the server parses each element with the
/// element type's own input function, exactly as it parses a scalar bind of
/// the same text. Every element is quoted, so commas, braces, spaces and
/// `NULL` inside a value stay data.
extension PostgresBind {
    /// The array of `elements`' text forms (`nil` elements are SQL NULL).
    /// - Throws: ``PostgresError`` (`.invalidBind`) when an element contains
    ///   a NUL character, which PostgreSQL text cannot hold and a C string
    ///   would silently cut; ``PostgresError/batchIndex`` names the element.
    public static func array(_ elements: [PostgresBind]) throws(PostgresError) -> PostgresBind {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(2 + elements.reduce(0) { $0 + ($1.text?.utf8.count ?? 4) + 3 })
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            guard let text = element.text else {
                out.append(contentsOf: "NULL".utf8)
                continue
            }
            if LibPQ.containsNUL(text) {
                var error = PostgresError(.invalidBind, message: "array element \(index + 1) contains a NUL character")
                error.batchIndex = index
                throw error
            }
            out.append(UInt8(ascii: "\""))
            appendEscaped(text, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "}"))
        return PostgresBind(dataType: .unspecified, text: String(decoding: out, as: UTF8.self))
    }

    /// Appends `text` with a backslash before each `"` and `\` (the only
    /// bytes a quoted element escapes), copying the runs between them whole:
    /// elements are often kilobytes (a payload's hex, an event's JSON).
    private static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices where bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                out.append(UInt8(ascii: "\\"))
                start = index
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
    }

    /// One array per column of `rows` (all rows must have `columns` binds):
    /// the parameters of a set-based statement, column by column.
    /// - Throws: ``PostgresError`` (`.invalidBind`) for a row of another
    ///   width or an element with a NUL character; ``PostgresError/batchIndex``
    ///   names the row.
    public static func columns(_ rows: [[PostgresBind]], columns: Int) throws(PostgresError) -> [PostgresBind] {
        for (index, row) in rows.enumerated() where row.count != columns {
            var error = PostgresError(.invalidBind, message: "row of \(row.count) values where \(columns) were expected")
            error.batchIndex = index
            throw error
        }
        return try (0..<columns).map { (column) throws(PostgresError) in try array(rows.map { $0[column] }) }
    }
}
