import Testing
@testable import Postgres

/// A prepared statement is SQL text with `$n` placeholders, not a PostgresQuery, and a table
/// name cannot be a parameter: the names go in through `PostgresQuery.quoteIdentifier`.
@Suite struct PipelineTests {
    func makeTable(_ connection: PostgresConnection) async throws -> String {
        let table = TestDatabase.uniqueName("pipe")
        try await connection.execute("CREATE TABLE \(identifier: table) (id bigint PRIMARY KEY, name text NOT NULL, n int NOT NULL DEFAULT 0)")
        return table
    }

    @Test func tenThousandRowsInOneTransaction() async throws {
        let connection = try await TestDatabase.connect()
        let table = try await makeTable(connection)
        let insert = PostgresPreparedStatement(
            name: "ins_\(table)",
            sql: "INSERT INTO \(PostgresQuery.quoteIdentifier(table)) (id, name) VALUES ($1, $2)")
        let batch = (0..<10_000).map { PostgresBatchItem(insert, [$0, "row \($0) ✓"]) }
        let counts = try await connection.pipeline(statements: [insert], batch: batch, inTransaction: true)
        #expect(counts.count == 10_000)
        #expect(counts.allSatisfy { $0 == 1 })
        let row = try await connection.query("SELECT count(*), sum(id) FROM \(identifier: table)")[0]
        let (count, sum) = try row.decode((Int, Double).self)
        #expect(count == 10_000)
        #expect(sum == Double(9_999 * 10_000 / 2))
        #expect(try await connection.inTransaction() == false)
        try await connection.execute("DROP TABLE \(identifier: table)")
    }

    @Test func mixedStatementsReturnPerItemCountsAndReusePreparedStatements() async throws {
        let connection = try await TestDatabase.connect()
        let table = try await makeTable(connection)
        let quoted = PostgresQuery.quoteIdentifier(table)
        let insert = PostgresPreparedStatement(name: "i_\(table)", sql: "INSERT INTO \(quoted) (id, name) VALUES ($1, $2)")
        let bump = PostgresPreparedStatement(name: "u_\(table)", sql: "UPDATE \(quoted) SET n = n + 1 WHERE id <= $1")
        let counts = try await connection.pipeline(
            statements: [insert, bump],
            batch: [
                PostgresBatchItem(insert, [1, "a"]), PostgresBatchItem(insert, [2, "b"]),
                PostgresBatchItem(bump, [2]), PostgresBatchItem(bump, [0]), PostgresBatchItem(insert, [3, "c"]),
            ])
        #expect(counts == [1, 1, 2, 0, 1])
        // Second batch: statements are already prepared on this connection.
        let again = try await connection.pipeline(statements: [insert, bump], batch: [PostgresBatchItem(bump, [3])])
        #expect(again == [3])
        let changed = PostgresPreparedStatement(name: bump.name, sql: "SELECT 1")
        let error = await expectPostgresError { _ = try await connection.pipeline(statements: [changed], batch: []) }
        #expect(error?.kind == .invalidBind)
        try await connection.execute("DROP TABLE \(identifier: table)")
    }

    @Test func failureMidBatchRollsBackEverythingAndNamesTheItem() async throws {
        let connection = try await TestDatabase.connect()
        let table = try await makeTable(connection)
        let insert = PostgresPreparedStatement(
            name: "f_\(table)",
            sql: "INSERT INTO \(PostgresQuery.quoteIdentifier(table)) (id, name) VALUES ($1, $2)")
        var batch = (0..<1_000).map { PostgresBatchItem(insert, [$0, "ok"]) }
        batch[700] = PostgresBatchItem(insert, [5, "duplicate of item 5"])
        let error = await expectPostgresError { _ = try await connection.pipeline(statements: [insert], batch: batch) }
        #expect(error?.kind == .server)
        #expect(error?.sqlState == "23505")
        #expect(error?.batchIndex == 700)
        #expect(error?.description.contains("duplicate of item 5") == false)
        #expect(try await connection.query("SELECT count(*) FROM \(identifier: table)")[0].decode(Int.self) == 0)
        #expect(try await connection.inTransaction() == false)

        // The connection and its prepared statement remain usable.
        let counts = try await connection.pipeline(statements: [insert], batch: [PostgresBatchItem(insert, [1, "x"])])
        #expect(counts == [1])
        try await connection.execute("DROP TABLE \(identifier: table)")
    }

    @Test func batchJoinsAnOuterTransaction() async throws {
        let pool = PostgresPool(configuration: try TestDatabase.configuration(), options: .init(maximumConnections: 1))
        let table = try await pool.withConnection { try await makeTable($0) }
        let insert = PostgresPreparedStatement(
            name: "o_\(table)",
            sql: "INSERT INTO \(PostgresQuery.quoteIdentifier(table)) (id, name) VALUES ($1, $2)")
        struct Abort: Error {}
        await #expect(throws: Abort.self) {
            try await pool.withTransaction { conn in
                _ = try await conn.pipeline(statements: [insert], batch: [PostgresBatchItem(insert, [1, "x"])])
                throw Abort()
            }
        }
        #expect(try await pool.query("SELECT count(*) FROM \(identifier: table)")[0].decode(Int.self) == 0)
        try await pool.execute("DROP TABLE \(identifier: table)")
        await pool.close()
    }
}
