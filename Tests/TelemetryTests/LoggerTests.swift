import Foundation
import Testing
@testable import Telemetry

@Suite struct LoggerTests {
    @Test func writesOneJSONObjectPerLineWithRequestIDAndMetadata() throws {
        let sink = CapturingLogSink()
        let logger = Logger(service: "catalog", sink: sink).with(Logger.requestIDKey, "req-1")
        logger.info("served \"products\"\nagain", metadata: ["http.route": "/api/products"])

        let line = try #require(sink.lines.first)
        #expect(!line.contains("\n"))
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "info")
        #expect(object["message"] as? String == "served \"products\"\nagain")
        #expect(object["service"] as? String == "catalog")
        #expect(object["request_id"] as? String == "req-1")
        #expect((object["metadata"] as? [String: String])?["http.route"] == "/api/products")
        let time = try #require(object["time"] as? String)
        #expect(time.count == 24 && time.hasSuffix("Z"))
    }

    @Test func dropsLinesBelowTheMinimumLevel() {
        let sink = CapturingLogSink()
        let logger = Logger(service: "s", minimumLevel: .warning, sink: sink)
        logger.info("hidden")
        logger.debug("hidden")
        logger.error("shown")
        #expect(sink.lines.count == 1)
        #expect(sink.lines.first?.contains("shown") == true)
    }

    @Test func parsesLevelNames() {
        #expect(LogLevel(name: "WARN") == .warning)
        #expect(LogLevel(name: "Debug") == .debug)
        #expect(LogLevel(name: "loud") == nil)
    }

    @Test func escapesControlCharacters() throws {
        let sink = CapturingLogSink()
        Logger(service: "s", sink: sink).info("bell\u{07}tab\t")
        let line = try #require(sink.lines.first)
        #expect(line.contains("\\u0007"))
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == "bell\u{07}tab\t")
    }

    @Test func timestampsAreRFC3339UTCWithMilliseconds() {
        var bytes: [UInt8] = []
        LogLineEncoder.appendTimestamp(Date(timeIntervalSince1970: 1_796_125_814.368), to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "2026-12-01T11:50:14.368Z")
        bytes = []
        LogLineEncoder.appendTimestamp(Date(timeIntervalSince1970: 0.0009), to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "1970-01-01T00:00:00.000Z")
    }

    @Test func metadataIsSortedAndNonASCIITextSurvives() throws {
        let sink = CapturingLogSink()
        Logger(service: "s", sink: sink).with("b", #"ünïcødé \ "q" 😀"#).info("m", metadata: ["a": "1", Logger.requestIDKey: "r"])
        let line = try #require(sink.lines.first)
        #expect(line.hasSuffix(#","request_id":"r","metadata":{"a":"1","b":"ünïcødé \\ \"q\" 😀"}}"#), "\(line)")
    }
}
