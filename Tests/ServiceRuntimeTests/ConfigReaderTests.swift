import ServiceSettings
import Foundation
@testable import ServiceRuntime
import Telemetry
import Testing

@Suite struct ConfigReaderTests {
    enum Mode: String, CaseIterable { case live, sandbox }

    @Test func missingRequiredVariableIsNamed() {
        var reader = ConfigReader(Environment([:]))
        _ = reader.required.string(.named("DATABASE_URL"))
        #expect(throws: ConfigurationError.self) { try reader.finish() }
        #expect(reader.problems == [ConfigurationProblem(variable: "DATABASE_URL", message: "required but not set")])
        #expect(ConfigurationError(problems: reader.problems).description.contains("DATABASE_URL: required but not set"))
    }

    @Test func everyProblemIsReportedTogether() throws {
        let environment = Environment(["PORT": "abc", "DEBUG": "maybe", "MODE": "prod", "TIMEOUT": "-3", "RATIO": "x"])
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigReader.load(environment) { reader in
                _ = reader.int(.named("PORT"), default: 8081)
                _ = reader.required.string(.named("DATABASE_URL"))
                _ = reader.bool(.named("DEBUG"), default: false)
                _ = reader.enumeration(.named("MODE"), default: Mode.sandbox)
                _ = reader.duration(.named("TIMEOUT"), default: .seconds(5))
                _ = reader.required.double(.named("RATIO"))
                _ = reader.required.url(.named("BROKER_URL"))
            }
        }
        let problems = try #require(error).problems
        #expect(
            problems.map(\.description) == [
                "PORT: expected an integer, got \"abc\"",
                "DATABASE_URL: required but not set",
                "DEBUG: expected one of true, false, 1, 0, yes, no, on, off, got \"maybe\"",
                "MODE: expected one of live, sandbox, got \"prod\"",
                "TIMEOUT: expected a duration in seconds (e.g. 30, 1.5, 250ms, 5m, 30d), got \"-3\"",
                "RATIO: expected a number, got \"x\"",
                "BROKER_URL: required but not set",
            ])
        #expect(try #require(error).variables == ["PORT", "DATABASE_URL", "DEBUG", "MODE", "TIMEOUT", "RATIO", "BROKER_URL"])
    }

    @Test func defaultsApplyWhenUnsetOrEmpty() throws {
        var reader = ConfigReader(Environment(["EMPTY": ""]))
        #expect(reader.int(.named("PORT"), default: 8081) == 8081)
        #expect(reader.string(.named("EMPTY"), default: "fallback") == "fallback")
        #expect(reader.bool(.named("FLAG"), default: true) == true)
        #expect(reader.duration(.named("GRACE"), default: .seconds(10)) == .seconds(10))
        #expect(reader.list(.named("BROKERS"), default: ["localhost:9092"]) == ["localhost:9092"])
        #expect(reader.enumeration(.named("MODE"), default: Mode.live) == .live)
        #expect(reader.string(.named("OPTIONAL")) == nil)
        #expect(reader.secret(.named("OPTIONAL_SECRET")) == nil)
        try reader.finish()
    }

    @Test func parsesEveryType() throws {
        let environment = Environment([
            "PORT": "9000", "RATIO": "0.25", "ON": "YES", "OFF": "0", "ON2": " on ", "OFF2": "Off", "URL": "postgres://u@h:5432/db",
            "T1": "1.5", "T2": "250ms", "T3": "2m", "T4": "30d", "MODE": "Live", "LIST": " a, b ,,c ", "PORTS": "1,2",
        ])
        var reader = ConfigReader(environment)
        #expect(reader.required.int(.named("PORT"), in: 1...65535) == 9000)
        #expect(reader.double(.named("RATIO")) == 0.25)
        #expect(reader.bool(.named("ON")) == true)
        #expect(reader.bool(.named("OFF")) == false)
        // The same words as the providers' LEMONSQUEEZY_TEST_MODE (BooleanSetting).
        #expect(reader.bool(.named("ON2")) == true)
        #expect(reader.bool(.named("OFF2")) == false)
        #expect(reader.url(.named("URL"))?.host == "h")
        #expect(reader.duration(.named("T1")) == .milliseconds(1500))
        #expect(reader.duration(.named("T2")) == .milliseconds(250))
        #expect(reader.duration(.named("T3")) == .seconds(120))
        #expect(reader.duration(.named("T4")) == .seconds(30 * 86_400))
        #expect(reader.required.enumeration(.named("MODE"), as: Mode.self) == .live)
        #expect(reader.list(.named("LIST")) == ["a", "b", "c"])
        #expect(reader.value(.named("PORTS"), .list(of: .int())) == [1, 2])
        try reader.finish()
    }

    @Test func rangeAndBadValueAreInTheMessage() {
        var reader = ConfigReader(Environment(["PORT": "70000", "DATABASE_URL": "postgres://app:hunter2@db:5432/x y\n"]))
        _ = reader.int(.named("PORT"), default: 1, in: 1...65535)
        _ = reader.required.url(.named("DATABASE_URL"))
        #expect(
            reader.problems.map(\.description) == [
                "PORT: expected an integer in 1...65535, got \"70000\"",
                "DATABASE_URL: expected an absolute URL, got \"postgres://<redacted>@db:5432/x y\\u{a}\"",
            ])
        #expect(!reader.problems.description.contains("hunter2"))
    }

    @Test func invalidLogLevelIsAProblemAndTheLoggerStillWorks() {
        var reader = ConfigReader(Environment(["LOG_LEVEL": "loud"]))
        let logger = Logger.bootstrap(service: "test", reader: &reader, sink: CapturingLogSink())
        #expect(logger.minimumLevel == .info)
        #expect(reader.problems.map(\.variable) == ["LOG_LEVEL"])

        var valid = ConfigReader(Environment(["LOG_LEVEL": "DEBUG"]))
        #expect(Logger.bootstrap(service: "test", reader: &valid, sink: CapturingLogSink()).minimumLevel == .debug)
        #expect(valid.problems.isEmpty)
    }

    @Test func failureLogsEveryProblem() {
        let sink = CapturingLogSink()
        let error = ConfigurationError(problems: [
            ConfigurationProblem(variable: "PORT", message: "expected an integer, got \"abc\""),
            ConfigurationProblem(variable: "DATABASE_URL", message: "required but not set"),
        ])
        ServiceConfigurationFailure.log(error, to: Logger(service: "test", sink: sink))
        #expect(sink.lines.count == 3)
        #expect(sink.lines[0].contains("\"config.variable\":\"PORT\""))
        #expect(sink.lines[1].contains("\"config.variable\":\"DATABASE_URL\""))
        #expect(sink.lines[2].contains("PORT, DATABASE_URL"))
        #expect(ServiceConfigurationFailure.exitCode == 78)
    }
}
