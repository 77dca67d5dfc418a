import Postgres

extension ProjectionSchema {
    /// The migrator for ``migrations``; its advisory lock makes concurrent starts safe.
    public static func migrator() throws -> PostgresMigrator {
        try PostgresMigrator(migrations: migrations.map { PostgresMigration(version: $0.version, name: $0.name, sql: $0.sql) })
    }

    /// Applies pending projection migrations.
    /// - Returns: the versions this call applied.
    @discardableResult
    public static func migrate(pool: PostgresPool) async throws -> [Int] {
        try await migrator().migrate(pool: pool)
    }
}
