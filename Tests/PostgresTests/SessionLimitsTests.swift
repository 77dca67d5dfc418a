import ServiceSettings
import Testing
@testable import Postgres

@Suite struct SessionLimitsTests {
    @Test func everyLimitReachesLibpqOrTheSessionOptions() {
        var configuration = PostgresConfiguration(host: "db")
        configuration.limits = PostgresSessionLimits(
            statementTimeout: .seconds(5), lockTimeout: .milliseconds(1500), idleInTransactionTimeout: .seconds(15),
            connectTimeout: .seconds(1), keepaliveIdle: .seconds(10), keepaliveInterval: .milliseconds(2500), keepaliveCount: 4,
            tcpUserTimeout: .milliseconds(7500))
        let pairs = Dictionary(configuration.keywordPairs(), uniquingKeysWith: { $1 })
        #expect(pairs["keepalives"] == "1")
        #expect(pairs["keepalives_idle"] == "10")
        #expect(pairs["keepalives_interval"] == "3", "whole seconds, rounded up")
        #expect(pairs["keepalives_count"] == "4")
        #expect(pairs["tcp_user_timeout"] == "7500")
        #expect(pairs["connect_timeout"] == "2", "libpq treats 1 as 2; say so")
        let options = pairs["options"] ?? ""
        #expect(options.contains("-c statement_timeout=5000"))
        #expect(options.contains("-c lock_timeout=1500"))
        #expect(options.contains("-c idle_in_transaction_session_timeout=15000"))
        #expect(options.contains("-c TimeZone=UTC"))
    }

    @Test func anOffLimitIsLeftOutRatherThanSentAsZero() {
        let configuration = PostgresConfiguration(host: "db")
        let pairs = Dictionary(configuration.keywordPairs(), uniquingKeysWith: { $1 })
        #expect(pairs["options"]?.contains("statement_timeout") == false)
        #expect(pairs["options"]?.contains("lock_timeout") == false)
        #expect(configuration.limits.responseTimeout == nil, "no statement limit, no client deadline")
        #expect(pairs["keepalives"] == "1", "the network limits are on for every connection")
    }

    @Test func theResponseTimeoutIsTheStatementLimitPlusTheNetworksTime() {
        #expect(PostgresSessionLimits.requestPath.responseTimeout == .seconds(15))
        #expect(PostgresSessionLimits.batch.responseTimeout == .seconds(90))
        let noUserTimeout = PostgresSessionLimits(
            statementTimeout: .seconds(1), keepaliveIdle: .seconds(2), keepaliveInterval: .seconds(3), keepaliveCount: 4,
            tcpUserTimeout: nil)
        #expect(noUserTimeout.responseTimeout == .seconds(15))
    }

    @Test func theEnvironmentOverridesThePresetAndZeroTurnsALimitOff() throws {
        var reader = ConfigReader(
            Environment([
                "DATABASE_STATEMENT_TIMEOUT": "250ms", "DATABASE_LOCK_TIMEOUT": "0", "DATABASE_KEEPALIVE_COUNT": "7",
                "DATABASE_TCP_USER_TIMEOUT": "20s",
            ]))
        let limits = PostgresSessionLimits.fromEnvironment(&reader, defaults: .requestPath)
        try reader.finish()
        #expect(limits.statementTimeout == .milliseconds(250))
        #expect(limits.lockTimeout == nil)
        #expect(limits.keepaliveCount == 7)
        #expect(limits.tcpUserTimeout == .seconds(20))
        #expect(limits.idleInTransactionTimeout == PostgresSessionLimits.requestPath.idleInTransactionTimeout)
        #expect(limits.connectTimeout == PostgresSessionLimits.requestPath.connectTimeout)
    }

    @Test func aBadValueIsReportedByName() {
        var reader = ConfigReader(Environment(["DATABASE_KEEPALIVE_COUNT": "0", "DATABASE_LOCK_TIMEOUT": "soon"]))
        _ = PostgresSessionLimits.fromEnvironment(&reader, defaults: .batch)
        #expect(Set(reader.problems.map(\.variable)) == ["DATABASE_KEEPALIVE_COUNT", "DATABASE_LOCK_TIMEOUT"])
    }

    @Test func theStartUpLineShowsEveryLimitAndNoSecret() {
        var configuration = PostgresConfiguration(host: "db", password: "hunter2-secret")
        configuration.limits = .batch
        let line = configuration.limits.description
        #expect(line.contains("statement=60000ms") && line.contains("lock=30000ms") && line.contains("tcp_user=30000ms"))
        #expect(line.contains("response=90000ms"))
        #expect(!line.contains("hunter2"))
    }
}
