import Foundation
import Testing
@testable import Postgres

@Suite struct MigratorTests {
    func migrations(_ prefix: String) -> [PostgresMigration] {
        let table = PostgresQuery.quoteIdentifier(prefix + "_items")
        return [
            PostgresMigration(version: 1, name: "create", sql: "CREATE TABLE \(table) (id int PRIMARY KEY, note text);"),
            PostgresMigration(version: 2, name: "seed", sql: """
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
        #expect(try await connection.query("SELECT count(*) FROM \(unescaped: table)")[0].decode(Int.self) == 0)
        try await connection.execute("DROP TABLE \(unescaped: table), \(identifier: ledger)")
    }

    @Test func loadsFilesSortedByNumericPrefix() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(TestDatabase.uniqueName("migdir"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (file, sql) in [("10_last.sql", "SELECT 10;"), ("2_middle.sql", "SELECT 2;"), ("001_first.sql", "SELECT 1;"),
                            ("README.md", "not a migration")] {
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
