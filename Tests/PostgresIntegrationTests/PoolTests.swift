@testable import Postgres
import TestSupport
import Testing

@Suite struct PoolTests {
    @Test func thirdCallerWaitsUntilAConnectionIsReleased() async throws {
        let pool = PostgresPool(
            configuration: try TestDatabase.configuration(),
            options: .init(maximumConnections: 2, acquireTimeout: .seconds(60)))
        let held1 = Gate(), held2 = Gate(), release1 = Gate(), release2 = Gate(), third = Gate()
        async let first: Void = pool.withConnection { _ in
            await held1.open(); await release1.wait()
        }
        async let second: Void = pool.withConnection { _ in
            await held2.open(); await release2.wait()
        }
        await held1.wait()
        await held2.wait()
        #expect(pool.statistics.open == 2)

        async let waiting: Int = pool.withConnection { connection in
            await third.open()
            return try await connection.query("SELECT \(7)")[0].decode(Int.self)
        }
        try await waitUntil("the third caller waits") { pool.statistics.waiting == 1 }
        #expect(await third.isOpen == false, "a third connection was handed out while two were in use")
        #expect(pool.statistics.open == 2)

        await release1.open()
        #expect(try await waiting == 7)
        await release2.open()
        try await first
        try await second
        #expect(pool.statistics.open <= 2)
        #expect(pool.statistics.waiting == 0)
        await pool.close()
    }

    @Test func acquireTimesOutWhenExhausted() async throws {
        let pool = PostgresPool(
            configuration: try TestDatabase.configuration(),
            options: .init(maximumConnections: 2, acquireTimeout: .milliseconds(200)))
        let held1 = Gate(), held2 = Gate(), release = Gate()
        async let first: Void = pool.withConnection { _ in
            await held1.open(); await release.wait()
        }
        async let second: Void = pool.withConnection { _ in
            await held2.open(); await release.wait()
        }
        await held1.wait()
        await held2.wait()
        let error = await expectPostgresError { try await pool.withConnection { _ in } }
        #expect(error?.kind == .poolTimeout)
        #expect(pool.statistics.waiting == 0)
        await release.open()
        try await first
        try await second
        // After the timeout the pool still works.
        #expect(try await pool.query("SELECT 1")[0].decode(Int.self) == 1)
        await pool.close()
        let closed = await expectPostgresError { try await pool.withConnection { _ in } }
        #expect(closed?.kind == .poolClosed)
    }

    @Test func recoversAfterServerRestart() async throws {
        let cluster = try await PrivateCluster.start()
        do {
            let config = try PostgresConfiguration(url: cluster.url)
            let pool = PostgresPool(configuration: config, options: .init(maximumConnections: 2))
            let pidQuery: PostgresQuery = "SELECT pg_backend_pid()"
            // Open both connections, so one sits idle in the pool across the restart.
            let before = try await pool.withConnection { first in
                try await pool.withConnection { second in
                    [try await first.query(pidQuery)[0].decode(Int.self), try await second.query(pidQuery)[0].decode(Int.self)]
                }
            }
            #expect(pool.statistics.idle == 2)
            let direct = try await PostgresConnection.connect(config)

            // A connection checked out across the restart breaks, and the pool discards it.
            try await pool.withConnection { held in
                try await cluster.restart()
                let error = await expectPostgresError { _ = try await held.query("SELECT 1") }
                #expect(error?.kind == .connectionClosed)
                #expect(held.isClosed)
            }
            // The idle one from before is found dead and replaced, without an error.
            #expect(pool.statistics.idle == 1)
            let after = try await pool.query(pidQuery)[0].decode(Int.self)
            #expect(!before.contains(after))
            #expect(pool.statistics.open <= 2)

            let error = await expectPostgresError { _ = try await direct.query("SELECT 1") }
            #expect(error?.kind == .connectionClosed)
            #expect(direct.isClosed)
            await pool.close()
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }
}
