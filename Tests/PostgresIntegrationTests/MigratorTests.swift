import Foundation
import Testing
@testable import Postgres

@Suite struct MigratorTests {
    func migrations(_ prefix: String) -> [PostgresMigration] {
        // A migration is SQL text (DDL, several statements), not a PostgresQuery: nothing in it
        // can be a bound parameter, so the table name goes in through the named quoting helper.
        let table = PostgresQuery.quoteIdentifier(prefix + "_items")
        return [
            PostgresMigration(version: 1, name: "create", sql: "CREATE TABLE \(table) (id int PRIMARY KEY, note text);"),
            PostgresMigration(
                version: 2, name: "seed",
                sql: """
                    INSERT INTO \(table) VALUES (1, 'one');
                    -- a second statement in the same file
                    UPDATE \(table) SET note = note || '!' WHERE id = 1;
                    """),
            PostgresMigration(version: 10, name: "column", sql: "ALTER TABLE \(table) ADD COLUMN extra int DEFAULT 0;"),
        ]
    }

    @Test func racingMigratorsApplyEachMigrationOnce() async throws {
        let config = try TestDatabase.configuration()
        let prefix = TestDatabase.uniqueName("mig")
        let ledger = prefix + "_ledger"
        let poolA = PostgresPool(configuration: config, options: .init(maximumConnections: 1))
        let poolB = PostgresPool(configuration: config, options: .init(maximumConnections: 1))
        let migratorA = try PostgresMigrator(migrations: migrations(prefix).reversed(), tableName: ledger)
        let migratorB = try PostgresMigrator(migrations: migrations(prefix), tableName: ledger)
        async let a = migratorA.migrate(pool: poolA)
        async let b = migratorB.migrate(pool: poolB)
        let (appliedA, appliedB) = try await (a, b)
        // One of them did all the work; the other found it done.
        #expect((appliedA + appliedB).sorted() == [1, 2, 10])
        #expect(appliedA.isEmpty || appliedB.isEmpty)

        let rows = try await poolA.query("SELECT version, name, length(checksum), applied_at FROM \(identifier: ledger) ORDER BY version")
        #expect(try rows.map { try $0.decode((Int, String, Int, Date).self).0 } == [1, 2, 10])
        #expect(try rows.allSatisfy { try $0.decode(column: 2, as: Int.self) == 32 })
        let notes = try await poolA.query("SELECT note, extra FROM \(identifier: prefix + "_items")")
        #expect(notes.count == 1)
        #expect(try notes[0].decode((String, Int).self) == ("one!", 0))

        // A third run applies nothing.
        #expect(try await migratorA.migrate(pool: poolA).isEmpty)
        try await poolA.execute("DROP TABLE \(identifier: prefix + "_items"), \(identifier: ledger)")
        await poolA.close()
        await poolB.close()
    }

    @Test func changedChecksumIsAnError() async throws {
        let connection = try await TestDatabase.connect()
        let prefix = TestDatabase.uniqueName("mig")
        let ledger = prefix + "_ledger"
        var list = migrations(prefix)
        try await PostgresMigrator(migrations: list, tableName: ledger).migrate(connection: connection)
        list[1].sql += "\n-- edited after release"
        let error = await expectPostgresError {
            try await PostgresMigrator(migrations: list, tableName: ledger).migrate(connection: connection)
        }
        #expect(error?.kind == .migration)
        try await connection.execute("DROP TABLE \(identifier: prefix + "_items"), \(identifier: ledger)")
    }

    @Test func failingMigrationRollsBackAndStops() async throws {
        let connection = try await TestDatabase.connect()
        let prefix = TestDatabase.uniqueName("mig")
        let ledger = prefix + "_ledger"
        // Migration text: quoted with the named helper, as in migrations(_:).
        let table = PostgresQuery.quoteIdentifier(prefix + "_t")
        let list = [
            PostgresMigration(version: 1, name: "ok", sql: "CREATE TABLE \(table) (id int);"),
            PostgresMigration(version: 2, name: "broken", sql: "INSERT INTO \(table) VALUES (1); SELECT 1/0;"),
            PostgresMigration(version: 3, name: "never", sql: "INSERT INTO \(table) VALUES (3);"),
        ]
        let error = await expectPostgresError {
            try await PostgresMigrator(migrations: list, tableName: ledger).migrate(connection: connection)
        }
        #expect(error?.kind == .migration)
        #expect(error?.sqlState == "22012")
        let versions = try await connection.query("SELECT version FROM \(identifier: ledger)").map { try $0.decode(Int.self) }
        #expect(versions == [1])
        #expect(try await connection.query("SELECT count(*) FROM \(identifier: prefix + "_t")")[0].decode(Int.self) == 0)
        try await connection.execute("DROP TABLE \(identifier: prefix + "_t"), \(identifier: ledger)")
    }

    /// A service whose role may only read the ledger (no DDL) starts against
    /// an up-to-date schema, and is told what to do when a migration is pending.
    @Test func aRoleWithoutDDLRightsPassesAnUpToDateSchemaAndNamesTheFixOtherwise() async throws {
        let admin = try await TestDatabase.connect()
        let prefix = TestDatabase.uniqueName("mig")
        let ledger = prefix + "_ledger", role = prefix + "_service"
        let list = migrations(prefix)
        #expect(try await PostgresMigrator(migrations: list, tableName: ledger).migrate(connection: admin) == [1, 2, 10])
        try await admin.execute("CREATE ROLE \(identifier: role) LOGIN")
        try await admin.execute("GRANT SELECT ON \(identifier: ledger) TO \(identifier: role)")
        var configuration = try TestDatabase.configuration()
        configuration.user = role
        let service = try await PostgresConnection.connect(configuration)

        #expect(try await PostgresMigrator(migrations: list, tableName: ledger).migrate(connection: service).isEmpty)
        // No ledger it can read (another table name): the locked path runs, and DDL is refused.
        let unreadable = await expectPostgresError {
            try await PostgresMigrator(migrations: list, tableName: ledger + "_other").migrate(connection: service)
        }
        #expect(unreadable?.kind == .migration && unreadable?.sqlState == "42501")
        #expect(unreadable?.message?.contains("schema owner") == true, "\(String(describing: unreadable?.message))")
        // A pending migration: refused, naming the migration and the fix; nothing recorded.
        // Migration text again: the name is quoted with the named helper.
        let pending =
            list + [PostgresMigration(version: 11, name: "more", sql: "CREATE TABLE \(PostgresQuery.quoteIdentifier(prefix + "_more")) (id int);")]
        let refused = await expectPostgresError {
            try await PostgresMigrator(migrations: pending, tableName: ledger).migrate(connection: service)
        }
        #expect(refused?.kind == .migration && refused?.sqlState == "42501")
        #expect(
            refused?.message?.contains("migration 11 (more) failed") == true && refused?.message?.contains("schema owner") == true,
            "\(String(describing: refused?.message))")
        await service.close()
        #expect(try await admin.query("SELECT max(version) FROM \(identifier: ledger)")[0].decode(Int.self) == 10)
        // A changed migration is no longer up to date for the fast path either: the locked path reports it.
        var edited = list
        edited[0].sql += "\n-- edited"
        #expect(try await PostgresMigrator(migrations: edited, tableName: ledger).isUpToDate(admin) == false)

        try await admin.execute("DROP TABLE \(identifier: prefix + "_items"), \(identifier: ledger)")
        try await admin.execute("DROP ROLE \(identifier: role)")
        await admin.close()
    }

    @Test func loadsFilesSortedByNumericPrefix() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(TestDatabase.uniqueName("migdir"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (file, sql) in [
            ("10_last.sql", "SELECT 10;"), ("2_middle.sql", "SELECT 2;"), ("001_first.sql", "SELECT 1;"),
            ("README.md", "not a migration"),
        ] {
            try sql.write(to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        let migrator = try PostgresMigrator(directory: directory.path)
        #expect(migrator.migrations.map(\.version) == [1, 2, 10])
        #expect(migrator.migrations.map(\.name) == ["first", "middle", "last"])

        try "SELECT 0;".write(to: directory.appendingPathComponent("nonumber.sql"), atomically: true, encoding: .utf8)
        #expect(throws: PostgresError.self) { try PostgresMigrator(directory: directory.path) }
        #expect(throws: PostgresError.self) {
            try PostgresMigrator(migrations: [.init(version: 1, name: "a", sql: ""), .init(version: 1, name: "b", sql: "")])
        }
    }
}
