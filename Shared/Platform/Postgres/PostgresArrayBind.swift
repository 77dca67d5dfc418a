/// One parameter holding a column of values, for set-based statements
/// (`INSERT ... SELECT ... FROM unnest($1::text[], $2::timestamptz[], ...)`):
/// a whole batch's rows in one execution instead of one per row.
///
/// Sent as PostgreSQL's array text form (`{"a","b",NULL}`) with the type
/// left to the statement's cast, so the server parses each element with the
/// element type's own input function, exactly as it parses a scalar bind of
/// the same text. Every element is quoted, so commas, braces, spaces and
/// `NULL` inside a value stay data. The typed forms (``array(_:of:)``,
/// ``columns(_:types:)``) send the same values in binary where they can.
extension PostgresBind {
    /// The array of `elements`' text forms (`nil` elements are SQL NULL).
    /// - Throws: ``PostgresError`` (`.invalidBind`) when an element contains
    ///   a NUL character, which PostgreSQL text cannot hold and a C string
    ///   would silently cut; ``PostgresError/batchIndex`` names the element.
    public static func array(_ elements: [PostgresBind]) throws(PostgresError) -> PostgresBind {
        for (index, element) in elements.enumerated() {
            guard case .text(let text) = element.value, LibPQ.containsNUL(text) else { continue }
            var error = PostgresError(.invalidBind, message: "array element \(index + 1) contains a NUL character")
            error.batchIndex = index
            throw error
        }
        return PostgresBind(dataType: .unspecified, text: textArray(elements))
    }

    /// The array of `elements` for a statement that reads it as
    /// `elementType[]` (its SQL casts the parameter so): in PostgreSQL's
    /// binary format when every element holds a value of that type
    /// (``PostgresBinaryArray``), else as ``array(_:)``'s text. Either way
    /// the server gets the same values; ``text`` is the text form.
    /// - Throws: ``PostgresError`` (`.invalidBind`) when an element contains
    ///   a NUL character; ``PostgresError/batchIndex`` names the element.
    public static func array(_ elements: [PostgresBind], of elementType: PostgresDataType) throws(PostgresError) -> PostgresBind {
        guard let bytes = try PostgresBinaryArray.encode(elements, as: elementType) else { return try array(elements) }
        return PostgresBind(dataType: .unspecified, value: .binaryArray(bytes: bytes, elements: elements))
    }

    /// The array literal of `elements`' text forms, every element quoted
    /// (callers have checked that no text holds a NUL character).
    static func textArray(_ elements: [PostgresBind]) -> String {
        let texts = elements.map(\.text)
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(2 + texts.reduce(0) { $0 + ($1?.utf8.count ?? 4) + 3 })
        for (index, text) in texts.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            guard let text else {
                out.append(contentsOf: "NULL".utf8)
                continue
            }
            out.append(UInt8(ascii: "\""))
            appendEscaped(text, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
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

    /// One array per column of `rows`, each read by the statement as
    /// `types[column][]` (``array(_:of:)``: binary where every element fits).
    /// - Throws: as ``columns(_:columns:)``.
    public static func columns(_ rows: [[PostgresBind]], types: [PostgresDataType]) throws(PostgresError) -> [PostgresBind] {
        for (index, row) in rows.enumerated() where row.count != types.count {
            var error = PostgresError(.invalidBind, message: "row of \(row.count) values where \(types.count) were expected")
            error.batchIndex = index
            throw error
        }
        return try types.enumerated().map { (column) throws(PostgresError) in try array(rows.map { $0[column.offset] }, of: column.element) }
    }
}
