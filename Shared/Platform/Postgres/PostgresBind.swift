/// One bound parameter: its type and its value (`nil` text is SQL NULL).
/// Sent separately from the SQL text, so it can never change the statement.
///
/// A bind keeps the value as its Swift type gave it (a string, bytes, an
/// instant, an integer) and ``text`` is its PostgreSQL text form. Scalars
/// travel as that text; a typed array of them
/// (``PostgresBind/array(_:of:)``) may travel in PostgreSQL's binary format,
/// built from the kept values, so neither side formats and parses text.
public struct PostgresBind: Sendable, Hashable {
    /// The parameter's declared type; `.unspecified` lets the server infer it.
    public var dataType: PostgresDataType
    /// The value as given, rendered to text only when text is asked for.
    var value: Value

    /// The value in text format, or `nil` for NULL.
    public var text: String? {
        get { value.text }
        set { value = newValue.map(Value.text) ?? .null }
    }

    /// Creates a bind from a type and its text form.
    public init(dataType: PostgresDataType, text: String?) {
        self.dataType = dataType
        self.value = text.map(Value.text) ?? .null
    }

    init(dataType: PostgresDataType, value: Value) {
        self.dataType = dataType
        self.value = value
    }

    /// SQL NULL with no declared type.
    public static let null = PostgresBind(dataType: .unspecified, text: nil)

    /// Two binds are equal when they send the same type and text, however each holds its value.
    public static func == (a: Self, b: Self) -> Bool { a.dataType == b.dataType && a.text == b.text }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(dataType)
        hasher.combine(text)
    }

    /// How a bind holds its value. Each case has one text form, the one
    /// PostgreSQL's input function of the bind's type reads back as the value.
    enum Value: Sendable {
        case null
        case text(String)
        /// `bytea`; text form `\x` and hex.
        case bytes([UInt8])
        /// An instant, in microseconds since 1970-01-01 UTC; text form ISO with `+00`.
        case microseconds(Int64)
        /// An integer of any width; text form decimal.
        case integer(Int64)
        /// A UUID's 16 bytes; text form the canonical hyphenated hex.
        case uuid([UInt8])
        /// An array in PostgreSQL's binary format (``PostgresBinaryArray``); text form the array literal of `elements`.
        case binaryArray(bytes: [UInt8], elements: [PostgresBind])

        var text: String? {
            switch self {
            case .null: nil
            case .text(let text): text
            case .bytes(let bytes): ByteaHex.encode(bytes)
            case .microseconds(let micros): TimestampText.encode(micros: micros)
            case .integer(let value): String(value)
            case .uuid(let bytes): UUIDText.encode(bytes)
            case .binaryArray(_, let elements): PostgresBind.textArray(elements)
            }
        }
    }
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
