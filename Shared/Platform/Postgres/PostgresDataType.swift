/// A PostgreSQL type OID, as found in `pg_type`.
public struct PostgresDataType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The OID.
    public var rawValue: UInt32
    /// Wraps an OID.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// No type given: the server infers it from the statement, as for a quoted literal.
    public static let unspecified = Self(rawValue: 0)
    /// `boolean`
    public static let bool = Self(rawValue: 16)
    /// `bytea`
    public static let bytea = Self(rawValue: 17)
    /// `name`
    public static let name = Self(rawValue: 19)
    /// `bigint`
    public static let int8 = Self(rawValue: 20)
    /// `smallint`
    public static let int2 = Self(rawValue: 21)
    /// `integer`
    public static let int4 = Self(rawValue: 23)
    /// `text`
    public static let text = Self(rawValue: 25)
    /// `oid`
    public static let oid = Self(rawValue: 26)
    /// `json`
    public static let json = Self(rawValue: 114)
    /// `real`
    public static let float4 = Self(rawValue: 700)
    /// `double precision`
    public static let float8 = Self(rawValue: 701)
    /// `unknown` (an untyped literal in a select list)
    public static let unknown = Self(rawValue: 705)
    /// `character(n)`
    public static let bpchar = Self(rawValue: 1042)
    /// `character varying`
    public static let varchar = Self(rawValue: 1043)
    /// `date`
    public static let date = Self(rawValue: 1082)
    /// `timestamp without time zone`
    public static let timestamp = Self(rawValue: 1114)
    /// `timestamp with time zone`
    public static let timestamptz = Self(rawValue: 1184)
    /// `numeric`
    public static let numeric = Self(rawValue: 1700)
    /// `uuid`
    public static let uuid = Self(rawValue: 2950)
    /// `jsonb`
    public static let jsonb = Self(rawValue: 3802)

    /// The SQL name for well-known types, else `oid <n>`.
    public var description: String {
        switch self {
        case .unspecified: "unspecified"
        case .bool: "boolean"
        case .bytea: "bytea"
        case .name: "name"
        case .int8: "bigint"
        case .int2: "smallint"
        case .int4: "integer"
        case .text: "text"
        case .oid: "oid"
        case .json: "json"
        case .float4: "real"
        case .float8: "double precision"
        case .unknown: "unknown"
        case .bpchar: "character"
        case .varchar: "character varying"
        case .date: "date"
        case .timestamp: "timestamp"
        case .timestamptz: "timestamptz"
        case .numeric: "numeric"
        case .uuid: "uuid"
        case .jsonb: "jsonb"
        default: "oid \(rawValue)"
        }
    }
}
