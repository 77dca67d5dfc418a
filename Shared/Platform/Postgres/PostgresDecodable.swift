/// A Swift type that a result column can be decoded into.
public protocol PostgresDecodable: Sendable {
    /// Decodes a non-NULL value from PostgreSQL's text format.
    /// - Parameters:
    ///   - text: the column value as the server sent it.
    ///   - type: the column's type.
    /// - Throws: ``PostgresDecodingFailure`` when the type or text does not fit.
    static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> Self
    /// The value for SQL NULL; by default NULL is an error.
    static func decodeNull() throws(PostgresDecodingFailure) -> Self
}

extension PostgresDecodable {
    /// NULL cannot be decoded into a non-optional type.
    public static func decodeNull() throws(PostgresDecodingFailure) -> Self { throw .unexpectedNull }
}

/// Why one value could not be decoded; ``PostgresRow`` turns it into a
/// ``PostgresError`` that names the column.
public enum PostgresDecodingFailure: Error, Sendable, Hashable {
    /// The column is NULL but the requested type is not optional.
    case unexpectedNull
    /// The column's type cannot be decoded as the requested Swift type.
    case typeMismatch(PostgresDataType)
    /// The text could not be parsed as the requested type.
    case malformed(PostgresDataType)
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    /// Decodes the wrapped type.
    public static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> Self {
        try Wrapped.decode(text: text, type: type)
    }
    /// NULL becomes `nil`.
    public static func decodeNull() throws(PostgresDecodingFailure) -> Self { nil }
}
