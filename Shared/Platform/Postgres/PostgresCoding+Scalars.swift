// Text, integers, floating point and booleans in PostgreSQL's text format.

extension String: PostgresEncodable, PostgresDecodable {
    /// Strings are sent untyped, like a quoted literal, so the server infers
    /// the column's type (text, varchar, uuid, an enum, ...).
    public static var postgresDataType: PostgresDataType { .unspecified }
    /// The string itself.
    public var postgresBind: PostgresBind { PostgresBind(dataType: .unspecified, text: self) }
    /// Any column decodes as its text form, except `bytea`, whose text form is hex.
    public static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> String {
        guard type != .bytea else { throw .typeMismatch(type) }
        return text
    }
}

/// Integer column types that decode into any Swift integer that can hold the value.
private let integerTypes: Set<PostgresDataType> = [.int2, .int4, .int8, .oid]

extension FixedWidthInteger where Self: PostgresDecodable {
    static func decodeInteger(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> Self {
        guard integerTypes.contains(type) else { throw .typeMismatch(type) }
        guard let value = Self(text) else { throw .malformed(type) }
        return value
    }
}

extension Int: PostgresEncodable, PostgresDecodable {
    /// Sent as `bigint`.
    public static var postgresDataType: PostgresDataType { .int8 }
    /// Decimal text.
    public var postgresBind: PostgresBind { PostgresBind(dataType: .int8, value: .integer(Int64(self))) }
    /// From `smallint`, `integer`, `bigint` or `oid`.
    public static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> Int {
        try decodeInteger(text: text, type: type)
    }
}

extension Int64: PostgresEncodable, PostgresDecodable {
    /// Sent as `bigint`.
    public static var postgresDataType: PostgresDataType { .int8 }
    /// Decimal text.
    public var postgresBind: PostgresBind { PostgresBind(dataType: .int8, value: .integer(Int64(self))) }
    /// From `smallint`, `integer`, `bigint` or `oid`.
    public static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> Int64 {
        try decodeInteger(text: text, type: type)
    }
}

extension Int32: PostgresEncodable, PostgresDecodable {
    /// Sent as `integer`.
    public static var postgresDataType: PostgresDataType { .int4 }
    /// Decimal text.
    public var postgresBind: PostgresBind { PostgresBind(dataType: .int4, value: .integer(Int64(self))) }
    /// From an integer column whose value fits.
    public static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> Int32 {
        try decodeInteger(text: text, type: type)
    }
}

extension Int16: PostgresEncodable, PostgresDecodable {
    /// Sent as `smallint`.
    public static var postgresDataType: PostgresDataType { .int2 }
    /// Decimal text.
    public var postgresBind: PostgresBind { PostgresBind(dataType: .int2, value: .integer(Int64(self))) }
    /// From an integer column whose value fits.
    public static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> Int16 {
        try decodeInteger(text: text, type: type)
    }
}

extension Double: PostgresEncodable, PostgresDecodable {
    /// Sent as `double precision`.
    public static var postgresDataType: PostgresDataType { .float8 }
    /// Shortest text that round-trips, with PostgreSQL's spelling of the special values.
    public var postgresBind: PostgresBind {
        let text: String
        if isNaN {
            text = "NaN"
        } else if self == .infinity {
            text = "Infinity"
        } else if self == -.infinity {
            text = "-Infinity"
        } else {
            text = "\(self)"
        }
        return PostgresBind(dataType: .float8, text: text)
    }
    /// From `real`, `double precision`, `numeric` or an integer column.
    public static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> Double {
        guard [.float4, .float8, .numeric].contains(type) || integerTypes.contains(type) else {
            throw .typeMismatch(type)
        }
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default:
            guard let value = Double(text) else { throw .malformed(type) }
            return value
        }
    }
}

extension Bool: PostgresEncodable, PostgresDecodable {
    /// Sent as `boolean`.
    public static var postgresDataType: PostgresDataType { .bool }
    /// `true` or `false`.
    public var postgresBind: PostgresBind { PostgresBind(dataType: .bool, text: self ? "true" : "false") }
    /// From `boolean` (`t` or `f`).
    public static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> Bool {
        guard type == .bool else { throw .typeMismatch(type) }
        switch text {
        case "t": return true
        case "f": return false
        default: throw .malformed(type)
        }
    }
}
