@testable import ServiceSettings
import CatalogService
import CheckoutService
import Foundation
import HTTPServer
import Kafka
import Postgres
import Entitlements
import ProjectorService
import ProviderBudget
import ProviderConfiguration
import ReconcilerService
import SandboxServer
import ServiceRuntime
import StorefrontCLI
import WebhookSenderService
import Telemetry
import Testing
import WebhookReceiverService

/// docs/settings.json is what the compose check and docs/configuration.md are
/// built from; it must say exactly what the executables declare. When this
/// fails, run `scripts/settings-docs.sh` and commit what it changes.
@Suite struct SettingsDocsTests {
    /// Every executable's list, in the order scripts/settings-docs.sh asks them.
    static let binaries: [BinarySettings] =
        [
            CatalogBinary.settings, CheckoutBinary.settings, WebhookReceiverBinary.settings, ProjectorBinary.settings,
            ReconcilerBinary.settings, WebhookSenderBinary.settings, ProviderSandboxBinary.settings,
        ] + StorefrontCLIBinary.all

    static let settingsJSON = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/settings.json")

    @Test func theCheckedInJSONIsWhatTheDeclarationsRender() throws {
        let checkedIn = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.settingsJSON))
        let rendered = try JSONSerialization.jsonObject(with: Data(SettingsHelp.render(Self.binaries, as: .json).utf8))
        let same = (checkedIn as? NSArray)?.isEqual(rendered) == true
        #expect(same, "docs/settings.json is stale: run scripts/settings-docs.sh")
    }

    @Test func groupsOfTheSameTitleHoldTheSameSettings() {
        var byTitle: [String: SettingGroup] = [:]
        for group in Self.binaries.flatMap(\.groups) {
            if let earlier = byTitle[group.title] { #expect(earlier == group, "two different groups are called \(group.title)") }
            byTitle[group.title] = group
        }
    }

    @Test func everyExecutableDeclaresTheLogLevelItsLauncherReads() {
        for binary in Self.binaries {
            #expect(binary.names.contains(Setting.logLevel.name), "\(binary.binary) does not declare LOG_LEVEL")
        }
    }

    /// The default a declaration shows is the one the code reads with,
    /// wherever the shown text parses as a value ("1h", "500", "false"): every
    /// configuration reader runs once with nothing set.
    @Test func theDeclaredDefaultsAreTheOnesTheCodeReadsWith() {
        var reader = ConfigReader(Environment([:]))
        let logger = Logger(service: "settings-docs-tests", sink: DiscardingLogSink())
        _ = Logger.bootstrap(service: "settings-docs-tests", reader: &reader, sink: DiscardingLogSink())
        _ = BuildInfo.fromEnvironment(&reader)
        _ = HTTPServerConfiguration.fromEnvironment(&reader, defaultPort: 8082)
        _ = MessagingSettings.fromEnvironment(&reader, service: "checkout", logger: logger)
        _ = PostgresSessionLimits.fromEnvironment(&reader, defaults: .requestPath)
        _ = ProvidersConfiguration.fromEnvironment(&reader, uses: .all)
        _ = ProviderBudgetSettings.fromEnvironment(&reader, live: false)
        _ = EntitlementResolver.fromEnvironment(&reader, testDeployment: true)
        _ = CatalogConfiguration.fromEnvironment(&reader)
        _ = CheckoutConfiguration.fromEnvironment(&reader)
        _ = AuthConfiguration.fromEnvironment(&reader, mode: .test)
        _ = WebhookReceiverConfiguration.fromEnvironment(&reader)
        _ = ProjectorConfiguration.fromEnvironment(&reader)
        _ = ReconcilerConfiguration.fromEnvironment(&reader)
        _ = ReconcilerProviderSettings.fromEnvironment(&reader)
        _ = ProviderSandboxSettings.fromEnvironment(&reader)
        #expect(reader.defaultMismatches == [])
        // Most shown defaults are plain values; far fewer compared would mean the check stopped looking.
        #expect(reader.comparedDefaults >= 60, "only \(reader.comparedDefaults) defaults compared")
    }
}

/// Drops every line: the readers may warn, and these tests do not look.
struct DiscardingLogSink: LogSink {
    func write(line: [UInt8]) {}
}
