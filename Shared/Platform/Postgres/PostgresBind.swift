/// One bound parameter: its type and its value in PostgreSQL's text format
/// (`nil` is SQL NULL). Sent separately from the SQL text, so it can never
/// change the statement.
public struct PostgresBind: Sendable, Hashable {
    /// The parameter's declared type; `.unspecified` lets the server infer it.
    public var dataType: PostgresDataType
    /// The value in text format, or `nil` for NULL.
    public var text: String?

    /// Creates a bind from a type and its text form.
    public init(dataType: PostgresDataType, text: String?) {
        self.dataType = dataType
        self.text = text
    }

    /// SQL NULL with no declared type.
    public static let null = PostgresBind(dataType: .unspecified, text: nil)
}

/// A Swift value that can be bound as a query parameter.
public protocol PostgresEncodable: Sendable {
    /// The PostgreSQL type this Swift type is sent as (also used for NULLs of it).
    static var postgresDataType: PostgresDataType { get }
    /// The value as a bind parameter.
    var postgresBind: PostgresBind { get }
}

extension PostgresBind: PostgresEncodable {
    /// Binds have no fixed type; `.unspecified`.
    public static var postgresDataType: PostgresDataType { .unspecified }
    /// Itself.
    public var postgresBind: PostgresBind { self }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    /// The wrapped type's PostgreSQL type.
    public static var postgresDataType: PostgresDataType { Wrapped.postgresDataType }
    /// The wrapped value, or a NULL of the wrapped type.
    public var postgresBind: PostgresBind {
        switch self {
        case .some(let value): value.postgresBind
        case .none: PostgresBind(dataType: Wrapped.postgresDataType, text: nil)
        }
    }
}
