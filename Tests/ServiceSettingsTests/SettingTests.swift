@testable import ServiceSettings
import Foundation
import Testing

@Suite struct SettingTests {
    static let port = Setting("PORT", default: "8080", "port to listen on")
    static let brokers = Setting("BROKERS", required: true, "brokers")
    static let token = Setting("TOKEN", secret: true, "a secret")
    static let binary = BinarySettings("tool", [SettingGroup("Network", [port, brokers]), SettingGroup("Secrets", [token, port])])

    @Test func onlySecretsHaveAFileVariant() {
        #expect(Self.token.fileVariant == "TOKEN_FILE")
        #expect(Self.port.fileVariant == nil)
    }

    @Test func anOptionalCopyKeepsTheNameAndDropsRequired() {
        let optional = Self.brokers.optional("brokers, when set")
        #expect(optional.name == "BROKERS")
        #expect(!optional.isRequired)
        #expect(optional.summary == "brokers, when set")
    }

    @Test func aBinaryListsEachNameOnceFirstGroupWinning() {
        #expect(Self.binary.settings.map(\.name) == ["PORT", "BROKERS", "TOKEN"])
        #expect(Self.binary.names == ["PORT", "BROKERS", "TOKEN"])
    }

    // MARK: - Reading through declarations

    @Test func unsetGivesTheDefaultAndSetGivesTheValue() throws {
        var reader = ConfigReader(Environment(["BROKERS": "a:1, b:2"]), declared: Self.binary)
        let port = reader.int(Self.port, default: 8080)
        let brokers = reader.required.list(Self.brokers)
        #expect(port == 8080)
        #expect(brokers == ["a:1", "b:2"])
        try reader.finish()
    }

    @Test func anInvalidValueIsAProblemNamedAfterTheSetting() {
        var reader = ConfigReader(Environment(["PORT": "eighty"]), declared: Self.binary)
        let port = reader.int(Self.port, default: 8080)
        #expect(port == 8080)
        #expect(reader.problems == [ConfigurationProblem(variable: "PORT", message: "expected an integer, got \"eighty\"")])
    }

    @Test func aRequiredSettingThatIsUnsetIsAProblem() {
        var reader = ConfigReader(Environment([:]), declared: Self.binary)
        _ = reader.required.list(Self.brokers)
        #expect(reader.problems.map(\.description) == ["BROKERS: required but not set"])
    }

    @Test func readingASettingTheBinaryDidNotDeclareIsAProblem() {
        let other = Setting("OTHER", "declared, but not by this binary")
        var reader = ConfigReader(Environment(["OTHER": "x"]), declared: Self.binary)
        let value = reader.string(other)
        let isSet = reader.isSet(other)
        #expect(value == nil)
        #expect(!isSet)
        #expect(reader.problems.map(\.variable) == ["OTHER"])
        #expect(reader.problems.first?.message.contains("not among this binary's declared settings") == true)
    }

    @Test func aReaderWithoutADeclaredListAcceptsEveryDeclaration() throws {
        var reader = ConfigReader(Environment(["OTHER": "x"]))
        let value = reader.string(Setting("OTHER", "any"))
        #expect(value == "x")
        try reader.finish()
    }

    @Test func aSecretComesFromItsFileVariantTrimmed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("setting-tests-\(UUID().uuidString)").path
        try "s3cret\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = ConfigReader(Environment(["TOKEN_FILE": path]), declared: Self.binary)
        let secret = reader.secret(Self.token)?.reveal()
        let isSet = reader.isSet(Self.token)
        let isFileSet = reader.isFileSet(Self.token)
        let setNames = reader.setNames(of: [Self.port, Self.token])
        #expect(secret == "s3cret")
        #expect(!isSet)
        #expect(isFileSet)
        #expect(setNames == ["TOKEN_FILE"])
        try reader.finish()
    }

    @Test func aMissingSecretFileIsAProblemOfTheFileVariant() {
        var reader = ConfigReader(Environment(["TOKEN_FILE": "/nonexistent/token"]), declared: Self.binary)
        let secret = reader.secret(Self.token)
        #expect(secret == nil)
        #expect(reader.problems.map(\.variable) == ["TOKEN_FILE"])
    }

    // MARK: - --help-settings

    @Test func theHelpFlagChoosesTheFormat() throws {
        #expect(try SettingsHelp.requestedFormat(["serve"]) == nil)
        #expect(try SettingsHelp.requestedFormat(["--help-settings"]) == .text)
        #expect(try SettingsHelp.requestedFormat(["--help-settings", "--format", "json"]) == .json)
        #expect(throws: SettingsHelp.UsageError.self) { try SettingsHelp.requestedFormat(["--help-settings", "--format", "xml"]) }
        #expect(throws: SettingsHelp.UsageError.self) { try SettingsHelp.requestedFormat(["--help-settings", "--format"]) }
    }

    @Test func jsonCarriesEveryFieldOfEveryDeclaration() throws {
        let text = SettingsHelp.render([Self.binary], as: .json)
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(decoded.count == 1)
        #expect(decoded[0]["binary"] as? String == "tool")
        let groups = try #require(decoded[0]["groups"] as? [[String: Any]])
        #expect(groups.map { $0["title"] as? String } == ["Network", "Secrets"])
        let secrets = try #require(groups[1]["settings"] as? [[String: Any]])
        let token = try #require(secrets.first)
        #expect(token["name"] as? String == "TOKEN")
        #expect(token["secret"] as? Bool == true)
        #expect(token["file"] as? String == "TOKEN_FILE")
        #expect(token["default"] is NSNull)
        #expect(token["required"] as? Bool == false)
    }

    @Test func markdownAndTextShowRequiredDefaultsAndFiles() {
        let markdown = SettingsHelp.render([Self.binary], as: .markdown)
        #expect(markdown.contains("| `BROKERS` | **required** | brokers |"))
        #expect(markdown.contains("| `PORT` | `8080` | port to listen on |"))
        #expect(markdown.contains("| `TOKEN` (or `TOKEN_FILE`) | unset | a secret |"))
        let text = SettingsHelp.render([Self.binary], as: .text)
        #expect(text.contains("TOKEN (or TOKEN_FILE)  [default: unset, secret]"))
        #expect(text.contains("BROKERS  [required]"))
    }
}

@Suite struct DeclaredDefaultTests {
    @Test func aDefaultOtherThanTheDeclaredOneIsNoted() {
        var reader = ConfigReader(Environment([:]))
        _ = reader.int(Setting("PORT", default: "8080", "port"), default: 9090)
        _ = reader.duration(Setting("GRACE", default: "1h", "grace"), default: .seconds(3600))
        _ = reader.string(Setting("NAME", "no shown default"), default: "x")
        #expect(reader.defaultMismatches == ["PORT: declared default 8080, read with 9090"])
        #expect(reader.comparedDefaults == 2)
    }
}
