import Foundation
import Testing
import Telemetry
@testable import ServiceRuntime
import ServiceSettings

@Suite struct SecretTests {
    static let value = "s3cr3t-value-\(UInt64.random(in: 1...UInt64.max))"

    /// Writes `contents` to a fresh temporary file and returns its path.
    func temporaryFile(_ contents: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)")
        try Data(contents.utf8).write(to: url)
        return url.path
    }

    @Test func readsFromVariable() throws {
        var reader = ConfigReader(Environment(["AUTH_JWT_SECRET": Self.value]))
        let secret = reader.required.secret("AUTH_JWT_SECRET")
        try reader.finish()
        #expect(secret.reveal() == Self.value)
    }

    @Test func readsFromFileAndTrimsTrailingNewline() throws {
        let path = try temporaryFile(Self.value + "\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = ConfigReader(Environment(["AUTH_JWT_SECRET_FILE": path]))
        let secret = reader.secret("AUTH_JWT_SECRET")
        try reader.finish()
        #expect(secret?.reveal() == Self.value)
    }

    @Test func bothVariableAndFileIsAnError() throws {
        let path = try temporaryFile(Self.value)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = ConfigReader(Environment(["AUTH_JWT_SECRET": Self.value, "AUTH_JWT_SECRET_FILE": path]))
        _ = reader.required.secret("AUTH_JWT_SECRET")
        #expect(reader.problems.map(\.description) == ["AUTH_JWT_SECRET: both AUTH_JWT_SECRET and AUTH_JWT_SECRET_FILE are set; set only one"])
        #expect(throws: ConfigurationError.self) { try reader.finish() }
    }

    @Test func unreadableOrEmptyFileIsAnError() throws {
        let empty = try temporaryFile("\n")
        defer { try? FileManager.default.removeItem(atPath: empty) }
        var reader = ConfigReader(Environment(["A_FILE": "/nonexistent/\(UUID().uuidString)", "B_FILE": empty]))
        _ = reader.secret("A")
        _ = reader.required.secret("B")
        _ = reader.required.secret("C")
        let messages = reader.problems.map(\.description)
        #expect(messages.count == 3)
        #expect(messages[0].hasPrefix("A_FILE: cannot read \"/nonexistent/"))
        #expect(messages[0].hasSuffix("No such file or directory"))
        #expect(messages[1] == "B_FILE: file \"\(empty)\" is empty")
        #expect(messages[2] == "C: required but not set (set C or C_FILE)")
    }

    @Test func neverPrintsItsValue() throws {
        let secret = Secret(Self.value)
        var dumped = ""
        dump(secret, to: &dumped)
        struct Holder { let name: String; let token: Secret }
        var dumpedHolder = ""
        dump(Holder(name: "x", token: secret), to: &dumpedHolder)
        let renderings = [
            String(describing: secret), String(reflecting: secret), "\(secret)", "\([secret])", "\(Optional(secret) as Any)",
            dumped, dumpedHolder, String(describing: Holder(name: "x", token: secret)),
            String(describing: Mirror(reflecting: secret).children.map(\.value)),
        ]
        for text in renderings {
            #expect(!text.contains(Self.value), "leaked in \(text)")
        }
        #expect(String(describing: secret) == "<redacted>")
        #expect(dumped.contains("<redacted>"))
    }

    @Test func valueNeverAppearsInErrorsOrLogs() throws {
        let path = try temporaryFile(Self.value)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = ConfigReader(Environment(["TOKEN": Self.value, "TOKEN_FILE": path, "PORT": "x"]))
        let sink = CapturingLogSink()
        let logger = Logger(service: "test", sink: sink)
        let token = reader.required.secret("TOKEN")
        _ = reader.int("PORT")
        logger.info("token is \(token)", metadata: ["token": "\(token)"])
        do {
            try reader.finish()
            Issue.record("expected a configuration error")
        } catch {
            ServiceConfigurationFailure.log(error, to: logger)
            #expect(!String(describing: error).contains(Self.value))
            #expect(!String(reflecting: error).contains(Self.value))
        }
        #expect(!sink.lines.isEmpty)
        for line in sink.lines { #expect(!line.contains(Self.value)) }
    }
}
