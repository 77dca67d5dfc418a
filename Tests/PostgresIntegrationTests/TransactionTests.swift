import Testing
@testable import Postgres

@Suite struct TransactionTests {
    struct Boom: Error {}

    @Test func rollbackOnThrowLeavesNothing() async throws {
        let connection = try await TestDatabase.connect()
        let table = TestDatabase.uniqueName("tx")
        try await connection.execute("CREATE TABLE \(identifier: table) (id int)")
        await #expect(throws: Boom.self) {
            try await connection.withTransaction { conn in
                try await conn.execute("INSERT INTO \(identifier: table) VALUES (\(1)), (\(2))")
                throw Boom()
            }
        }
        #expect(try await connection.query("SELECT count(*) FROM \(identifier: table)")[0].decode(Int.self) == 0)
        #expect(try await connection.inTransaction() == false)

        let inserted = try await connection.withTransaction { conn in
            try await conn.execute("INSERT INTO \(identifier: table) VALUES (\(3))")
        }
        #expect(inserted == 1)
        #expect(try await connection.query("SELECT count(*) FROM \(identifier: table)")[0].decode(Int.self) == 1)
        try await connection.execute("DROP TABLE \(identifier: table)")
    }

    @Test func swallowedErrorInsideTransactionFailsTheCommit() async throws {
        let connection = try await TestDatabase.connect()
        let error = await expectPostgresError {
            try await connection.withTransaction { conn in
                _ = try? await conn.query("SELECT 1 / \(0)")
            }
        }
        #expect(error?.sqlState == "25P02")
        #expect(try await connection.inTransaction() == false)
    }

    @Test func poolTransactionRollsBackOnThrow() async throws {
        let pool = PostgresPool(configuration: try TestDatabase.configuration(), options: .init(maximumConnections: 2))
        let table = TestDatabase.uniqueName("pooltx")
        try await pool.execute("CREATE TABLE \(identifier: table) (id int)")
        await #expect(throws: Boom.self) {
            try await pool.withTransaction { conn in
                try await conn.execute("INSERT INTO \(identifier: table) VALUES (\(1))")
                throw Boom()
            }
        }
        #expect(try await pool.query("SELECT count(*) FROM \(identifier: table)")[0].decode(Int.self) == 0)
        try await pool.execute("DROP TABLE \(identifier: table)")
        await pool.close()
    }

    /// BEGIN rides with the first statement (one round trip), yet every
    /// statement runs in the one transaction, and a body without statements
    /// leaves nothing open.
    @Test func theFirstStatementCarriesTheBegin() async throws {
        let connection = try await TestDatabase.connect()
        let (first, second) = try await connection.withTransaction { conn in
            let first = try await conn.query("SELECT txid_current()::text")[0].decode(String.self)
            let open = try await conn.inTransaction()
            #expect(open)
            let second = try await conn.query("SELECT txid_current()::text")[0].decode(String.self)
            return (first, second)
        }
        #expect(first == second)
        #expect(try await connection.inTransaction() == false)

        let nothing: Int = try await connection.withTransaction { conn in
            let open = try await conn.inTransaction()
            #expect(open)
            return 7
        }
        #expect(nothing == 7)
        #expect(try await connection.inTransaction() == false)
        #expect(try await connection.query("SELECT 1")[0].decode(Int.self) == 1)
    }

    /// A first statement that fails reports its own error, and the session is idle and usable after.
    @Test func aFailingFirstStatementRollsBackCleanly() async throws {
        let connection = try await TestDatabase.connect()
        let error = await expectPostgresError {
            _ = try await connection.withTransaction { conn in
                try await conn.execute("SELEC 1")
            }
        }
        #expect(error?.sqlState == "42601")
        #expect(try await connection.inTransaction() == false)
        let table = TestDatabase.uniqueName("txfirst")
        try await connection.execute("CREATE TABLE \(identifier: table) (id int)")
        await #expect(throws: Boom.self) {
            try await connection.withTransaction { conn in
                try await conn.execute("INSERT INTO \(identifier: table) VALUES (\(1))")
                throw Boom()
            }
        }
        #expect(try await connection.query("SELECT count(*) FROM \(identifier: table)")[0].decode(Int.self) == 0)
        try await connection.execute("DROP TABLE \(identifier: table)")
    }
}
