import Foundation
import BillingModel
import Entitlements
import ProviderConfiguration
import Providers
import TestSupport
import Testing
import Webhooks

/// The registered providers: every built-in definition has every module's
/// part, and a name no registered provider has is no provider.
@Suite struct ProviderDirectoryTests {
    @Test func everyBuiltInProviderHasEveryPart() {
        #expect(Provider.allCases.map(\.rawValue) == ["lemonsqueezy", "paystack", "stripe"])
        for provider in Provider.allCases {
            let definition = provider.definition
            #expect(definition.provider == provider)
            #expect(definition is any WebhookProviding, "\(provider) has no Webhooks part")
            #expect(definition is any EntitlementProviding, "\(provider) has no Entitlements part")
            #expect(definition is any ConfigurationProviding, "\(provider) has no Configuration part")
            #expect(definition is any APIProviding, "\(provider) has no API part")
        }
    }

    @Test func namesAndCatalogPrefixesAreUnique() {
        let providers = Provider.allCases
        #expect(Set(providers.map(\.rawValue)).count == providers.count)
        #expect(Set(providers.map(\.catalogPrefix)).count == providers.count)
        #expect(Set(providers.map { $0.configurationRules.settingsStem }).count == providers.count)
    }

    @Test func anUnregisteredNameIsNoProvider() throws {
        #expect(Provider(rawValue: "lemonsqueezy") == .lemonsqueezy)
        #expect(Provider(rawValue: "nopay") == nil)
        #expect(Provider(rawValue: "") == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Provider.self, from: Data(#""nopay""#.utf8)) }
        #expect(try JSONDecoder().decode(Provider.self, from: Data(#""paystack""#.utf8)) == .paystack)
        #expect(String(decoding: try JSONEncoder().encode(Provider.paystack), as: UTF8.self) == #""paystack""#)
    }

    /// Every enum of the API document that names a provider names exactly
    /// the registered ones (the `Provider` schema and the status's own).
    @Test func theAPIDocumentNamesEveryProvider() throws {
        let document = Fixture.directory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/api/openapi.json")
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: document))
        var enums: [[String]] = []
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                if let names = object["enum"] as? [Any], names.contains(where: { ($0 as? String) == Provider.paystack.rawValue }) {
                    enums.append(names.compactMap { $0 as? String })
                }
                object.values.forEach(walk)
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        walk(root)
        #expect(enums.count >= 2, "the Provider schema and the status's provider")
        for names in enums { #expect(names == Provider.allCases.map(\.rawValue)) }
        // The catalog id patterns name every provider's prefix (`^(ls|ps|st)_…`).
        let text = try String(contentsOf: document, encoding: .utf8)
        let prefixes = "(" + Provider.allCases.map(\.catalogPrefix).joined(separator: "|") + ")_"
        #expect(text.contains(prefixes), "a catalog id pattern lists \(prefixes)")
        #expect(!text.contains("(ls|ps)_"), "no catalog id pattern leaves a provider out")
    }

    @Test func registeringATakenNameKeepsTheFirstDefinition() {
        #expect(ProviderDirectory.register(PaystackProvider()) == false)
        #expect(Provider.allCases.count == 3)
    }
}
