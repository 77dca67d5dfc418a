/// SQL text plus its bind parameters.
///
/// Built with string interpolation, every interpolated value becomes a
/// parameter (`$1`, `$2`, ...) sent apart from the SQL, so a value can never
/// change the statement:
///
/// ```swift
/// let rows = try await conn.query("SELECT id FROM users WHERE email = \(email)")
/// ```
///
/// Two visibly named escape hatches exist: `\(identifier: name)` inserts a
/// double-quoted SQL identifier (quotes inside are doubled), and
/// `\(unescaped: sql)` pastes trusted SQL text verbatim.
public struct PostgresQuery: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// PostgreSQL's wire protocol counts parameters in 16 bits.
    public static let maximumBinds = 65_535

    /// The SQL text with `$n` placeholders.
    public var sql: String
    /// The parameters, in placeholder order.
    public var binds: [PostgresBind]

    /// Creates a query from SQL text you trust and its parameters.
    /// - Parameters:
    ///   - unsafeSQL: SQL text, pasted verbatim; never build it from untrusted input.
    ///   - binds: values for `$1`, `$2`, ...
    public init(unsafeSQL: String, binds: [PostgresBind] = []) {
        self.sql = unsafeSQL
        self.binds = binds
    }

    /// A literal without interpolations is plain SQL text.
    public init(stringLiteral value: String) {
        self.init(unsafeSQL: value)
    }

    /// Builds the SQL and binds from an interpolated literal.
    public init(stringInterpolation: StringInterpolation) {
        self.init(unsafeSQL: stringInterpolation.sql, binds: stringInterpolation.binds)
    }

    /// Collects literal text and turns each interpolated value into a parameter.
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var sql = ""
        var binds: [PostgresBind] = []

        /// Reserves room for the literal text.
        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
            binds.reserveCapacity(interpolationCount)
        }

        /// Appends SQL text from the literal.
        public mutating func appendLiteral(_ literal: String) { sql += literal }

        /// Binds a value as the next `$n` parameter.
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value) {
            binds.append(value.postgresBind)
            sql += "$\(binds.count)"
        }

        /// Binds an optional value; `nil` becomes a typed NULL.
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            binds.append(value.postgresBind)
            sql += "$\(binds.count)"
        }

        /// Inserts a double-quoted identifier (table or column name).
        public mutating func appendInterpolation(identifier: String) {
            sql += PostgresQuery.quoteIdentifier(identifier)
        }

        /// Pastes SQL text verbatim. Only for trusted text, never for input.
        public mutating func appendInterpolation(unescaped text: String) { sql += text }
    }

    /// `"name"` with embedded quotes doubled; NUL is dropped because
    /// PostgreSQL text cannot hold it.
    public static func quoteIdentifier(_ name: String) -> String {
        var out = "\""
        for scalar in name.unicodeScalars where scalar != "\0" {
            if scalar == "\"" { out += "\"\"" } else { out.unicodeScalars.append(scalar) }
        }
        return out + "\""
    }
}
