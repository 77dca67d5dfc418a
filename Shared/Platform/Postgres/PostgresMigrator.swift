/// Applies an ordered set of migrations, each once and each in its own
/// transaction, recording them in a table (`version`, `name`, `checksum`,
/// `applied_at`).
///
/// Safe when several processes start at once: the run holds a session-level
/// `pg_advisory_lock` on one connection, so the others wait and then find the
/// migrations applied. Editing an applied migration is an error (its MD5
/// checksum no longer matches).
///
/// A run that finds every migration recorded (with its checksum) returns
/// before taking the lock or running any DDL, so a service whose database
/// role may only read the bookkeeping table starts against an up-to-date
/// schema; with a migration pending, such a role fails with a `.migration`
/// error naming the fix (apply migrations as the schema owner).
public struct PostgresMigrator: Sendable {
    /// The migrations, sorted by version.
    public let migrations: [PostgresMigration]
    /// The bookkeeping table. Default `schema_migrations`.
    public let tableName: String
    /// Statement and lock limit while migrating, instead of the session's
    /// own (a request path's few seconds would fail an index build, and a
    /// process waiting for another's migration waits on the advisory lock).
    /// Default 30 minutes.
    public var statementTimeout: Duration = .seconds(1800)

    /// Creates a migrator.
    /// - Parameters:
    ///   - migrations: in any order; versions must be unique.
    ///   - tableName: the bookkeeping table.
    /// - Throws: ``PostgresError`` of kind `.migration` on a duplicate version.
    public init(migrations: [PostgresMigration], tableName: String = "schema_migrations") throws {
        let sorted = migrations.sorted { $0.version < $1.version }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where previous.version == next.version {
            throw PostgresError(.migration, message: "duplicate migration version \(next.version)")
        }
        self.migrations = sorted
        self.tableName = tableName
    }

    /// Creates a migrator from `<number>_<name>.sql` files; see ``PostgresMigration/load(directory:)``.
    /// - Throws: ``PostgresError`` of kind `.migration`, or file-system errors.
    public init(directory: String, tableName: String = "schema_migrations") throws {
        try self.init(migrations: PostgresMigration.load(directory: directory), tableName: tableName)
    }

    /// Applies pending migrations using one connection from the pool.
    /// - Returns: the versions applied by this call.
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func migrate(pool: PostgresPool) async throws -> [Int] {
        try await pool.withConnection { try await migrate(connection: $0) }
    }

    /// Applies pending migrations on a connection, holding the advisory lock meanwhile.
    /// - Returns: the versions applied by this call.
    /// - Throws: ``PostgresError`` of kind `.migration` when a migration fails or an
    ///   applied one changed; other ``PostgresError``s from the server.
    @discardableResult
    public func migrate(connection: PostgresConnection) async throws -> [Int] {
        if try await isUpToDate(connection) { return [] }
        return try await connection.withLiftedLimits(statementTimeout) { connection in
            try await migrateLocked(connection)
        }
    }

    private func migrateLocked(_ connection: PostgresConnection) async throws -> [Int] {
        let key = lockKey
        try await connection.execute("SELECT pg_advisory_lock(\(key))")
        do {
            let applied = try await applyPending(connection)
            try await connection.execute("SELECT pg_advisory_unlock(\(key))")
            return applied
        } catch {
            // If the session is gone the server already dropped the lock.
            _ = try? await connection.execute("SELECT pg_advisory_unlock(\(key))")
            throw error
        }
    }

    /// Whether every migration is recorded with an unchanged checksum, found
    /// without DDL or the lock. False when the bookkeeping table is missing,
    /// this role cannot read it, or anything differs: the locked path then
    /// applies what is pending or reports the problem.
    func isUpToDate(_ connection: PostgresConnection) async throws -> Bool {
        let readable = try await connection.query(
            """
            SELECT COALESCE(has_table_privilege(to_regclass(\(PostgresQuery.quoteIdentifier(tableName))), 'SELECT'), false)
            """)[0].decode(Bool.self)
        guard readable else { return false }
        var recorded: [Int: String] = [:]
        for row in try await connection.query("SELECT version, checksum FROM \(identifier: tableName)") {
            let (version, checksum) = try row.decode((Int, String).self)
            recorded[version] = checksum
        }
        for migration in migrations {
            guard let existing = recorded[migration.version] else { return false }
            let checksum = try await connection.query("SELECT md5(\(migration.sql))")[0].decode(String.self)
            guard existing == checksum else { return false }
        }
        return true
    }

    private func applyPending(_ connection: PostgresConnection) async throws -> [Int] {
        try await createLedgerIfMissing(connection)
        var recorded: [Int: String] = [:]
        for row in try await connection.query("SELECT version, checksum FROM \(identifier: tableName)") {
            let (version, checksum) = try row.decode((Int, String).self)
            recorded[version] = checksum
        }
        var applied: [Int] = []
        for migration in migrations {
            let checksum = try await connection.query("SELECT md5(\(migration.sql))")[0].decode(String.self)
            if let existing = recorded[migration.version] {
                guard existing == checksum else {
                    throw PostgresError(.migration, message: "applied migration \(migration.version) (\(migration.name)) has changed")
                }
                continue
            }
            do {
                try await connection.withTransaction { connection in
                    try await connection.runScript(migration.sql)
                    try await connection.execute(
                        """
                        INSERT INTO \(identifier: tableName) (version, name, checksum)
                        VALUES (\(migration.version), \(migration.name), \(checksum))
                        """)
                }
            } catch let error as PostgresError where error.kind == .server {
                var wrapped = error
                wrapped.kind = .migration
                wrapped.message = "migration \(migration.version) (\(migration.name)) failed: \(error.message ?? "")"
                if error.sqlState == Self.insufficientPrivilege {
                    wrapped.message! += "; apply migrations as the schema owner (storefront migrate)"
                }
                throw wrapped
            }
            applied.append(migration.version)
        }
        return applied
    }

    /// Created only when missing: `CREATE TABLE IF NOT EXISTS` still needs
    /// the right to create, and a pending migration explains itself better.
    private func createLedgerIfMissing(_ connection: PostgresConnection) async throws {
        let exists = try await connection.query(
            """
            SELECT to_regclass(\(PostgresQuery.quoteIdentifier(tableName))) IS NOT NULL
            """)[0].decode(Bool.self)
        guard !exists else { return }
        do {
            try await connection.execute(
                """
                CREATE TABLE IF NOT EXISTS \(identifier: tableName) (
                    version bigint PRIMARY KEY,
                    name text NOT NULL,
                    checksum text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now())
                """)
        } catch let error as PostgresError where error.kind == .server && error.sqlState == Self.insufficientPrivilege {
            var wrapped = error
            wrapped.kind = .migration
            wrapped.message =
                "migrations are pending and this role may not apply them (\(error.message ?? "permission denied")); "
                + "apply them as the schema owner (storefront migrate)"
            throw wrapped
        }
    }

    /// SQLSTATE 42501, `insufficient_privilege`.
    static let insufficientPrivilege = "42501"

    /// A 64-bit FNV-1a hash of the table name, so migrators of different
    /// tables do not block each other.
    var lockKey: Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "storefront.migrations.\(tableName)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}
