import Foundation
import Testing
@testable import Postgres

@Suite struct ConnectionTests {
    @Test func connectsWithURL() async throws {
        let connection = try await TestDatabase.connect()
        let rows = try await connection.query("SELECT 1 + \(41) AS answer, current_setting('TimeZone') AS tz")
        #expect(try rows[0].decode(column: "answer", as: Int.self) == 42)
        #expect(try rows[0].decode(column: "tz", as: String.self) == "UTC")
        await connection.close()
        #expect(connection.isClosed)
        let error = await expectPostgresError { _ = try await connection.query("SELECT 1") }
        #expect(error?.kind == .connectionClosed)
    }

    @Test func connectsWithKeywordParameters() async throws {
        let parsed = try TestDatabase.configuration()
        var config = PostgresConfiguration(
            host: parsed.host, port: parsed.port, user: parsed.user,
            password: parsed.password, database: parsed.database)
        config.applicationName = "storefront tests 'quoted' \\ app"
        config.statementTimeoutMilliseconds = 1500
        let connection = try await PostgresConnection.connect(config)
        let row = try await connection.query(
            "SELECT current_setting('application_name'), current_setting('statement_timeout')")[0]
        let (name, timeout) = try row.decode((String, String).self)
        #expect(name == "storefront tests 'quoted' \\ app")
        #expect(timeout == "1500ms")
    }

    @Test func statementTimeoutCancelsLongQueries() async throws {
        var config = try TestDatabase.configuration()
        config.statementTimeoutMilliseconds = 100
        let connection = try await PostgresConnection.connect(config)
        let error = await expectPostgresError { _ = try await connection.query("SELECT pg_sleep(5)") }
        #expect(error?.sqlState == "57014")
        #expect(try await connection.query("SELECT 1")[0].decode(Int.self) == 1)
    }

    @Test func connectionFailureIsReported() async throws {
        var config = try TestDatabase.configuration()
        config.host = "127.0.0.1"
        config.port = 1
        config.password = "never-shown"
        let error = await expectPostgresError { _ = try await PostgresConnection.connect(config) }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.description.contains("never-shown") == false)
    }

    @Test func noticesDoNotBreakQueries() async throws {
        let connection = try await TestDatabase.connect()
        let table = TestDatabase.uniqueName("notice")
        try await connection.execute("CREATE TABLE IF NOT EXISTS \(identifier: table) (id int)")
        // The second run raises a NOTICE ("already exists, skipping"), which must be swallowed.
        try await connection.execute("CREATE TABLE IF NOT EXISTS \(identifier: table) (id int)")
        try await connection.execute("DROP TABLE \(identifier: table)")
    }
}
