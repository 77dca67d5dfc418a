import Foundation
import Retention
import ServiceSettings
import Testing

/// The pure part of retention: reading a table's setting (0 keeps forever,
/// a floor refuses values that would prune rows still needed) and the cutoff.
@Suite struct RetentionPeriodTests {
    static let setting = Setting("KEEP_THINGS", default: "7d", "how long things are kept; 0 = forever")

    @Test func theDefaultAppliesWhenUnset() throws {
        var reader = ConfigReader(Environment([:]))
        #expect(reader.retention(Self.setting, default: .seconds(7 * 86_400)) == .keep(.seconds(7 * 86_400)))
        try reader.finish()
    }

    @Test func zeroKeepsForeverWhateverTheFloor() throws {
        var reader = ConfigReader(Environment(["KEEP_THINGS": "0"]))
        #expect(reader.retention(Self.setting, default: .seconds(60), minimum: .seconds(86_400)) == .forever)
        try reader.finish()
    }

    @Test func daysAndHoursAreRead() throws {
        var reader = ConfigReader(Environment(["KEEP_THINGS": "35d"]))
        #expect(reader.retention(Self.setting, default: .seconds(60)) == .keep(.seconds(35 * 86_400)))
        try reader.finish()
        var hours = ConfigReader(Environment(["KEEP_THINGS": "48h"]))
        #expect(hours.retention(Self.setting, default: .seconds(60)) == .keep(.seconds(48 * 3600)))
        try hours.finish()
    }

    @Test func aValueBelowTheFloorIsAStartUpError() {
        var reader = ConfigReader(Environment(["KEEP_THINGS": "1d"]))
        _ = reader.retention(Self.setting, default: .seconds(40 * 86_400), minimum: .seconds(31 * 86_400))
        #expect(throws: ConfigurationError.self) { try reader.finish() }
        var atFloor = ConfigReader(Environment(["KEEP_THINGS": "31d"]))
        #expect(atFloor.retention(Self.setting, default: .seconds(60), minimum: .seconds(31 * 86_400)) == .keep(.seconds(31 * 86_400)))
        #expect(throws: Never.self) { try atFloor.finish() }
    }

    @Test func theCutoffIsNowMinusThePeriodAndForeverHasNone() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(RetentionPeriod.keep(.seconds(3600)).cutoff(now: now) == Date(timeIntervalSince1970: 1_000_000 - 3600))
        #expect(RetentionPeriod.keep(.milliseconds(1500)).cutoff(now: now) == Date(timeIntervalSince1970: 1_000_000 - 1.5))
        #expect(RetentionPeriod.forever.cutoff(now: now) == nil)
    }

    @Test func theScheduleRefusesAnIntervalBelowASecondAndAnOversizedBatch() {
        var reader = ConfigReader(Environment(["RETENTION_INTERVAL": "200ms", "RETENTION_BATCH_SIZE": "0"]))
        _ = RetentionSchedule.fromEnvironment(&reader)
        #expect(throws: ConfigurationError.self) { try reader.finish() }
        var good = ConfigReader(Environment(["RETENTION_INTERVAL": "1h", "RETENTION_BATCH_SIZE": "500", "RETENTION_BATCH_PAUSE": "0"]))
        #expect(RetentionSchedule.fromEnvironment(&good) == RetentionSchedule(interval: .seconds(3600), batchSize: 500, batchPause: .zero))
        #expect(throws: Never.self) { try good.finish() }
    }
}
