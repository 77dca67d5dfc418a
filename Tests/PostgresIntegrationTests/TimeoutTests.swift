import Foundation
import TestSupport
import Testing
@testable import Postgres

/// The session limits against the real server: each fires as a `.timeout`
/// error, and a session whose server went silent is given up on and replaced.
@Suite struct TimeoutTests {
    static func configuration(_ limits: PostgresSessionLimits) throws -> PostgresConfiguration {
        var configuration = try TestDatabase.configuration()
        configuration.limits = limits
        return configuration
    }

    @Test func theLimitsReachTheSession() async throws {
        let limits = PostgresSessionLimits(
            statementTimeout: .milliseconds(1500), lockTimeout: .milliseconds(700), idleInTransactionTimeout: .seconds(9),
            tcpUserTimeout: .seconds(4))
        let connection = try await PostgresConnection.connect(try Self.configuration(limits))
        let row = try await connection.query(
            """
            SELECT current_setting('statement_timeout'), current_setting('lock_timeout'),
                current_setting('idle_in_transaction_session_timeout')
            """)[0]
        let (statement, lock, idle) = try row.decode((String, String, String).self)
        #expect(statement == "1500ms" && lock == "700ms" && idle == "9s")
        await connection.close()
    }

    @Test func aStatementTimeoutFiresOnPgSleepAndTheSessionLivesOn() async throws {
        let connection = try await PostgresConnection.connect(try Self.configuration(.init(statementTimeout: .milliseconds(200))))
        let started = ContinuousClock.now
        // A sleep far past the limit: the bound only has to tell "the limit
        // ended it" from "the sleep ran out", never time a loaded machine.
        let error = await expectPostgresError { _ = try await connection.query("SELECT pg_sleep(60)") }
        #expect(error?.kind == .timeout && error?.sqlState == "57014" && error?.isTransient == true)
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(try await connection.query("SELECT 1")[0].decode(Int.self) == 1)
        await connection.close()
    }

    @Test func aLockTimeoutFiresOnAHeldRowLock() async throws {
        let table = TestDatabase.uniqueName("locked")
        let holder = try await TestDatabase.connect()
        try await holder.execute("CREATE TABLE \(identifier: table) (id int PRIMARY KEY, n int)")
        try await holder.execute("INSERT INTO \(identifier: table) VALUES (1, 0)")
        let waiter = try await PostgresConnection.connect(
            try Self.configuration(.init(statementTimeout: .seconds(60), lockTimeout: .milliseconds(300))))
        try await holder.withTransaction { holder in
            try await holder.execute("SELECT n FROM \(identifier: table) WHERE id = 1 FOR UPDATE")
            let started = ContinuousClock.now
            let error = await expectPostgresError {
                try await waiter.execute("UPDATE \(identifier: table) SET n = n + 1 WHERE id = 1")
            }
            // The lock limit, not the statement limit, ended the wait: its own
            // SQLSTATE, and long before the statement limit.
            #expect(error?.kind == .timeout && error?.sqlState == "55P03")
            #expect(ContinuousClock.now - started < .seconds(30))
        }
        #expect(try await waiter.execute("UPDATE \(identifier: table) SET n = n + 1 WHERE id = 1") == 1)
        try await holder.execute("DROP TABLE \(identifier: table)")
        await waiter.close()
        await holder.close()
    }

    /// Without the client's response timeout the query waits forever (the
    /// proxy's kernel acknowledges everything): the time limit turns that hang into a failure.
    @Test(.timeLimit(.minutes(1))) func aBlackHoledConnectionFailsWithinTheLimitsAndThePoolRecovers() async throws {
        var configuration = try TestDatabase.configuration()
        let proxy = try FreezableTCPProxy(targetPort: configuration.port)
        defer { proxy.close() }
        configuration.host = "127.0.0.1"
        configuration.port = proxy.port
        // Response timeout: 1 s of statement limit + 1 s for the network. The connect
        // timeout is generous: a loaded CI machine can take seconds to connect through the proxy.
        configuration.limits = PostgresSessionLimits(
            statementTimeout: .seconds(1), lockTimeout: .milliseconds(500), connectTimeout: .seconds(10),
            keepaliveIdle: .seconds(1), keepaliveInterval: .seconds(1), keepaliveCount: 1, tcpUserTimeout: .seconds(1))
        #expect(configuration.limits.responseTimeout == .seconds(2))
        let pool = PostgresPool(configuration: configuration, options: PostgresPoolConfiguration(maximumConnections: 2))
        #expect(try await pool.query("SELECT 1")[0].decode(Int.self) == 1)

        proxy.freeze()
        let started = ContinuousClock.now
        let error = await expectPostgresError { _ = try await pool.query("SELECT 2") }
        let waited = ContinuousClock.now - started
        #expect(error?.kind == .timeout && error?.sqlState == nil && error?.isTransient == true)
        // About the response timeout: not at once, and nowhere near forever.
        #expect(waited >= .milliseconds(1800) && waited < .seconds(20), "failed after \(waited)")
        #expect(pool.statistics.open == 0, "the silent session was discarded")

        proxy.thaw()
        #expect(try await pool.query("SELECT 3")[0].decode(Int.self) == 3)
        #expect(pool.statistics.open == 1)
        await pool.close()
    }
}
