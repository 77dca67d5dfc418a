/// A result column's name and type.
public struct PostgresColumn: Sendable, Hashable {
    /// The column name as the server reports it.
    public var name: String
    /// The column's type.
    public var dataType: PostgresDataType
}

/// Column metadata shared by every row of one result.
final class PostgresColumns: Sendable {
    let columns: [PostgresColumn]
    let indexByName: [String: Int]

    init(_ columns: [PostgresColumn]) {
        self.columns = columns
        var index: [String: Int] = [:]
        // With duplicate names the first column wins, as in most drivers.
        for (offset, column) in columns.enumerated() where index[column.name] == nil {
            index[column.name] = offset
        }
        self.indexByName = index
    }
}

/// One row of a query result, in PostgreSQL's text format, with typed decoding.
public struct PostgresRow: Sendable {
    let metadata: PostgresColumns
    /// Each column's text, `nil` for NULL.
    let values: [String?]

    init(metadata: PostgresColumns, values: [String?]) {
        self.metadata = metadata
        self.values = values
    }

    /// The result's columns.
    public var columns: [PostgresColumn] { metadata.columns }

    /// Decodes the whole row as a tuple (or a single value), column by column.
    ///
    /// ```swift
    /// let (id, name, seen) = try row.decode((Int, String, Date?).self)
    /// ```
    /// - Throws: ``PostgresError`` of kind `.decoding` when the column count differs,
    ///   a column's type does not fit, or NULL meets a non-optional type.
    public func decode<each Value: PostgresDecodable>(
        _ types: (repeat each Value).Type,
        file: String = #fileID, line: Int = #line
    ) throws -> (repeat each Value) {
        var expected = 0
        for _ in repeat (each Value).self { expected += 1 }
        guard expected == values.count else {
            throw PostgresError(
                .decoding, message: "row has \(values.count) columns but \(expected) were decoded",
                file: file, line: line)
        }
        var index = 0
        func next<T: PostgresDecodable>(_ type: T.Type) throws -> T {
            defer { index += 1 }
            return try decode(column: index, as: type, file: file, line: line)
        }
        return (repeat try next((each Value).self))
    }

    /// Decodes the column at a position.
    /// - Throws: ``PostgresError`` of kind `.decoding`.
    public func decode<Value: PostgresDecodable>(
        column index: Int, as type: Value.Type = Value.self,
        file: String = #fileID, line: Int = #line
    ) throws -> Value {
        guard values.indices.contains(index) else {
            throw PostgresError(.decoding, message: "no column at index \(index)", file: file, line: line)
        }
        let column = metadata.columns[index]
        do {
            if let text = values[index] {
                return try Value.decode(text: text, type: column.dataType)
            }
            return try Value.decodeNull()
        } catch {
            // The message names column and types, never the value.
            let reason =
                switch error {
                case .unexpectedNull: "is NULL but \(Value.self) is not optional"
                case .typeMismatch(let found): "has type \(found), which cannot be decoded as \(Value.self)"
                case .malformed(let found): "holds \(found) text that is not a valid \(Value.self)"
                }
            var failure = PostgresError(
                .decoding, message: "column \"\(column.name)\" (#\(index)) \(reason)",
                file: file, line: line)
            failure.column = column.name
            throw failure
        }
    }

    /// Decodes the column with a name.
    /// - Throws: ``PostgresError`` of kind `.decoding`.
    public func decode<Value: PostgresDecodable>(
        column name: String, as type: Value.Type = Value.self,
        file: String = #fileID, line: Int = #line
    ) throws -> Value {
        guard let index = metadata.indexByName[name] else {
            var failure = PostgresError(.decoding, message: "no column named \"\(name)\"", file: file, line: line)
            failure.column = name
            throw failure
        }
        return try decode(column: index, as: type, file: file, line: line)
    }

    /// Whether the column at a position is NULL.
    public func isNull(column index: Int) -> Bool { values.indices.contains(index) && values[index] == nil }
}
