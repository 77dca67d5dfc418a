import Basics
import CatalogService
import CheckoutService
import Foundation
import ProjectorService
import ReconcilerService
import SandboxServer
import ServiceRuntime
import StorefrontCLI
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
            ReconcilerBinary.settings, ProviderSandboxBinary.settings,
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
}
