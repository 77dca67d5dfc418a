import Testing
@testable import Postgres

@Suite struct SafetyTests {
    @Test func maliciousStringsAreStoredVerbatim() async throws {
        let connection = try await TestDatabase.connect()
        let table = TestDatabase.uniqueName("evil")
        try await connection.execute("CREATE TABLE \(identifier: table) (id int, value text)")
        let evil = [
            "'); DROP TABLE \(table); --",
            #"\'; DROP TABLE x; -- "quoted" \\ backslashes \n"#,
            "$1 $2 $$ dollar $$ %s {} 'ünïcödé' 🚀 \u{200B}\u{FEFF}",
            "Robert'); DELETE FROM \(table) WHERE ('1'='1",
        ]
        for (index, value) in evil.enumerated() {
            try await connection.execute("INSERT INTO \(identifier: table) VALUES (\(index), \(value))")
        }
        let stored = try await connection.query("SELECT value FROM \(identifier: table) ORDER BY id").map { try $0.decode(String.self) }
        #expect(stored == evil)
        // Also through a WHERE clause, and the table survived.
        let hit = try await connection.query("SELECT id FROM \(identifier: table) WHERE value = \(evil[0])")
        #expect(try hit.map { try $0.decode(column: 0, as: Int.self) } == [0])
        try await connection.execute("DROP TABLE \(identifier: table)")
    }

    @Test func identifiersWithQuotesAreQuoted() async throws {
        let connection = try await TestDatabase.connect()
        let table = TestDatabase.uniqueName("we\"ird; DROP")
        try await connection.execute("CREATE TABLE \(identifier: table) (id int)")
        let found = try await connection.query("SELECT count(*) FROM pg_tables WHERE tablename = \(table)")
        #expect(try found[0].decode(Int.self) == 1)
        try await connection.execute("DROP TABLE \(identifier: table)")
    }

    @Test func uniqueViolationSurfacesSQLStateWithoutLeaking() async throws {
        let pool = PostgresPool(configuration: try TestDatabase.configuration(), options: .init(maximumConnections: 1))
        let table = TestDatabase.uniqueName("uniq")
        try await pool.execute("CREATE TABLE \(identifier: table) (email text PRIMARY KEY)")
        let secret = "alice+secret@example.com"
        try await pool.execute("INSERT INTO \(identifier: table) VALUES (\(secret))")
        let error = await expectPostgresError {
            try await pool.execute("INSERT INTO \(identifier: table) VALUES (\(secret))")
        }
        let failure = try #require(error)
        #expect(failure.kind == .server)
        #expect(failure.sqlState == "23505")
        #expect(failure.constraint == "\(table)_pkey")
        #expect(failure.table == table)
        #expect(!failure.description.contains(secret))
        #expect(!failure.description.contains("INSERT"))
        #expect(!failure.description.contains(table))
        #expect(failure.debugDescription.contains("23505"))
        #expect(failure.detail?.contains(secret) == true)
        try await pool.execute("DROP TABLE \(identifier: table)")
        await pool.close()
    }
}
