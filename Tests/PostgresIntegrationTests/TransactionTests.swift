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
}
