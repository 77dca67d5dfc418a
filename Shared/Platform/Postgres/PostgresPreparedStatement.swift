/// A named server-side prepared statement, prepared once per connection on
/// first use in ``PostgresConnection/pipeline(statements:batch:inTransaction:)``.
public struct PostgresPreparedStatement: Sendable, Hashable {
    /// The statement's name; unique per connection for a given SQL text.
    public var name: String
    /// SQL with `$1`, `$2`, ... placeholders. Trusted text, never built from input.
    public var sql: String
    /// Declared parameter types; empty (or `.unspecified` entries) lets the server infer them.
    public var parameterTypes: [PostgresDataType]

    /// Creates a prepared-statement description.
    /// - Parameters:
    ///   - name: statement name.
    ///   - sql: SQL text with placeholders.
    ///   - parameterTypes: declared parameter types, or empty to infer them.
    public init(name: String, sql: String, parameterTypes: [PostgresDataType] = []) {
        self.name = name
        self.sql = sql
        self.parameterTypes = parameterTypes
    }
}

/// One execution of a prepared statement in a pipelined batch.
public struct PostgresBatchItem: Sendable {
    /// Name of the prepared statement to run.
    public var statement: String
    /// Its parameters.
    public var binds: [PostgresBind]

    /// Creates an item from a statement name and ready-made binds.
    public init(statement: String, binds: [PostgresBind]) {
        self.statement = statement
        self.binds = binds
    }

    /// Creates an item from a statement and Swift values.
    public init(_ statement: PostgresPreparedStatement, _ values: [any PostgresEncodable]) {
        self.statement = statement.name
        self.binds = values.map(\.postgresBind)
    }
}
