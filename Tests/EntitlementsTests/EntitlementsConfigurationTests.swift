import ServiceRuntime
import Foundation
import BillingModel
import Testing
@testable import Entitlements
import ServiceSettings

@Suite struct EntitlementsConfigurationTests {
    static func parse(_ text: String) throws(EntitlementsConfiguration.Invalid) -> EntitlementsConfiguration {
        try EntitlementsConfiguration.parse(Array(text.utf8))
    }

    @Test func readsBothProvidersAndOneTimeDurations() throws {
        let configuration = try Self.parse(
            """
            {"entitlements": {
              "premium": {"lemonsqueezy": {"products": ["123", 124], "variants": ["456"]}, "paystack": {"plans": ["PLN_gx2wn530m0i3w3m"]}},
              "pro_icons": {"lemonsqueezy": {"variants": ["789"]}, "one_time": {"duration_days": 365}},
              "forever": {"lemonsqueezy": {"variants": ["790"]}, "one_time": {"lifetime": true}}
            }}
            """)
        #expect(configuration.entitlements.map(\.identifier) == ["forever", "premium", "pro_icons"])
        let premium = try #require(configuration.entitlements.first { $0.identifier == "premium" })
        #expect(premium.ids(.lemonsqueezy, "products") == ["123", "124"] && premium.ids(.lemonsqueezy, "variants") == ["456"])
        #expect(premium.ids(.paystack, "plans") == ["PLN_gx2wn530m0i3w3m"] && premium.oneTimeDuration == nil)
        #expect(configuration.entitlements.first { $0.identifier == "pro_icons" }?.oneTimeDuration == TimeInterval(365 * 86_400))

        #expect(configuration.entitlements(for: .lemonsqueezy, product: "124", variant: "1").map(\.identifier) == ["premium"])
        #expect(configuration.entitlements(for: .lemonsqueezy, product: "9", variant: "789").map(\.identifier) == ["pro_icons"])
        #expect(configuration.entitlements(for: .paystack, product: "PLN_gx2wn530m0i3w3m", variant: nil).map(\.identifier) == ["premium"])
        #expect(configuration.entitlements(for: .paystack, product: "123", variant: "123").isEmpty, "ids are per provider")
    }

    @Test func namesEveryProblemAtOnce() {
        let error = #expect(throws: EntitlementsConfiguration.Invalid.self) {
            try Self.parse(
                """
                {"entitlements": {
                  "bad id!": {"lemonsqueezy": {"products": ["1"]}},
                  "empty": {},
                  "typo": {"lemonsqueezy": {"product": ["1"]}, "paystack": {"plans": "PLN_x"}},
                  "twice": {"lemonsqueezy": {"variants": ["7", "7", true]}},
                  "span": {"paystack": {"plans": ["PLN_y"]}, "one_time": {"duration_days": 0}}
                }, "extra": 1}
                """)
        }
        let problems = error?.problems ?? []
        for fragment in [
            "unknown key \"extra\"", "entitlements.bad id!: identifiers", "entitlements.empty: no product",
            "entitlements.typo.lemonsqueezy: unknown key \"product\"", "entitlements.typo.paystack.plans must be an array",
            "entitlements.twice.lemonsqueezy.variants lists \"7\" twice", "entitlements.twice.lemonsqueezy.variants[2]",
            "entitlements.span.one_time",
        ] {
            #expect(problems.contains { $0.contains(fragment) }, "missing: \(fragment) in \(problems)")
        }
    }

    @Test func refusesWhatIsNotAConfiguration() {
        for text in ["not json", "[]", #"{"entitlements": []}"#, #"{"entitlements": {}}"#] {
            #expect(throws: EntitlementsConfiguration.Invalid.self, "\(text)") { try Self.parse(text) }
        }
        #expect(throws: EntitlementsConfiguration.Invalid.self) { try EntitlementsConfiguration.load(path: "/nonexistent/entitlements.json") }
    }
}

@Suite struct EntitlementResolverEnvironmentTests {
    @Test func readsTheFileAndTheGracesAndReportsEveryProblemByVariable() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("entitlements-\(UUID().uuidString).json").path
        try #"{"entitlements": {"premium": {"paystack": {"plans": ["PLN_p"]}}}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = ConfigReader(Environment(["ENTITLEMENTS_FILE": path, "ENTITLEMENT_UNPAID_GRACE": "72h"]))
        let resolver = EntitlementResolver.fromEnvironment(&reader, testDeployment: false)
        #expect(reader.problems.isEmpty)
        #expect(resolver.configuration?.entitlements.map(\.identifier) == ["premium"])
        #expect(resolver.policy == AccessPolicy(unpaidGrace: 72 * 3600, attentionGrace: 0, testDeployment: false))
        #expect(resolver.policy.renewalGrace == 16 * 86_400, "the documented default")

        var renewal = ConfigReader(Environment(["ENTITLEMENT_RENEWAL_GRACE": "72h"]))
        #expect(EntitlementResolver.fromEnvironment(&renewal, testDeployment: true).policy.renewalGrace == 72 * 3600)
        var none = ConfigReader(Environment(["ENTITLEMENT_RENEWAL_GRACE": "0"]))
        #expect(EntitlementResolver.fromEnvironment(&none, testDeployment: true).policy.renewalGrace == 0)
        #expect(renewal.problems.isEmpty && none.problems.isEmpty)

        try #"{"entitlements": {"premium": {}, "x y": {}}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        var bad = ConfigReader(Environment(["ENTITLEMENTS_FILE": path, "ENTITLEMENT_ATTENTION_GRACE": "soon", "ENTITLEMENT_RENEWAL_GRACE": "-1h"]))
        _ = EntitlementResolver.fromEnvironment(&bad, testDeployment: true)
        #expect(bad.problems.filter { $0.variable == "ENTITLEMENTS_FILE" }.count == 3)
        #expect(bad.problems.contains { $0.variable == "ENTITLEMENT_ATTENTION_GRACE" })
        #expect(bad.problems.contains { $0.variable == "ENTITLEMENT_RENEWAL_GRACE" })
    }

    @Test func anOptionalFileMayBeAbsentButIsCheckedWhenThere() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("entitlements-\(UUID().uuidString).json").path
        var absent = ConfigReader(Environment(["ENTITLEMENTS_FILE": path, "ENTITLEMENTS_FILE_OPTIONAL": "true"]))
        #expect(EntitlementResolver.fromEnvironment(&absent, testDeployment: true).configuration == nil, "each product its own entitlement")
        #expect(absent.problems.isEmpty)
        var required = ConfigReader(Environment(["ENTITLEMENTS_FILE": path]))
        _ = EntitlementResolver.fromEnvironment(&required, testDeployment: true)
        #expect(required.problems.map(\.variable) == ["ENTITLEMENTS_FILE"], "without ENTITLEMENTS_FILE_OPTIONAL a missing file stops start-up")

        try #"{"entitlements": {"premium": {"paystack": {"plans": ["PLN_p"]}}}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var present = ConfigReader(Environment(["ENTITLEMENTS_FILE": path, "ENTITLEMENTS_FILE_OPTIONAL": "true"]))
        #expect(EntitlementResolver.fromEnvironment(&present, testDeployment: true).configuration?.entitlements.map(\.identifier) == ["premium"])
        try #"{"entitlements": {"premium": {}}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        var broken = ConfigReader(Environment(["ENTITLEMENTS_FILE": path, "ENTITLEMENTS_FILE_OPTIONAL": "true"]))
        _ = EntitlementResolver.fromEnvironment(&broken, testDeployment: true)
        #expect(broken.problems.map(\.variable) == ["ENTITLEMENTS_FILE"], "a broken file is an error, optional or not")
        var typo = ConfigReader(Environment(["ENTITLEMENTS_FILE_OPTIONAL": "perhaps"]))
        _ = EntitlementResolver.fromEnvironment(&typo, testDeployment: true)
        #expect(typo.problems.map(\.variable) == ["ENTITLEMENTS_FILE_OPTIONAL"])
    }

    /// The example compose mounts (deploy/config), as the deploy README tells sellers to copy it.
    @Test func theDeploymentExampleIsAValidFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let example = try EntitlementsConfiguration.load(path: root.appendingPathComponent("deploy/config/entitlements.example.json").path)
        #expect(example.entitlements.map(\.identifier) == ["basic", "premium", "pro_icons", "sound_effects"])
        #expect(example.entitlements.first { $0.identifier == "sound_effects" }?.oneTimeDuration == TimeInterval(365 * 86_400))
        // The sandbox's Stripe catalog (Tools/SandboxKit/Stripe/StripeCatalog.swift): a product grants each of its prices, a price itself.
        #expect(example.entitlements(for: .stripe, product: "prod_SbxPremium", variant: "price_SbxPremiumYearly").map(\.identifier) == ["premium"])
        #expect(example.entitlements(for: .stripe, product: "prod_SbxTeam", variant: "price_SbxTeamYearly").map(\.identifier) == ["premium"])
        #expect(example.entitlements(for: .stripe, product: "prod_SbxProIcons", variant: "price_SbxProIcons").map(\.identifier) == ["pro_icons"])
        #expect(example.entitlements(for: .stripe, product: "prod_SbxWallpapers", variant: "price_SbxWallpapers").isEmpty)
    }
}
