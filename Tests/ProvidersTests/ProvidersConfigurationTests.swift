import HTTPClient
import BillingModel
import ProviderConfiguration
import Providers
import Testing
import ServiceSettings
import Webhooks

@Suite struct ProvidersConfigurationTests {
    static let ls = ["LEMONSQUEEZY_API_KEY": "ls-key-SECRET-1", "LEMONSQUEEZY_STORE_ID": "12345", "LEMONSQUEEZY_WEBHOOK_SECRET": "ls-whsec-SECRET-2"]
    static let ps = ["PAYSTACK_SECRET_KEY": "sk_test_SECRET-3"]

    /// Each problem as "VARIABLE message".
    func problems(_ environment: [String: String]) -> [String] {
        ProviderSettings.read(environment).problems.map { "\($0.variable) \($0.message)" }
    }

    @Test func bothProvidersWithDefaults() throws {
        let configuration = try ProviderSettings.configuration(Self.ls.merging(Self.ps) { a, _ in a })
        #expect(configuration.enabledProviders == [.lemonsqueezy, .paystack])
        let ls = try #require(configuration.lemonSqueezy)
        #expect(ls.apiKey?.reveal() == "ls-key-SECRET-1")
        #expect(ls.storeID == "12345")
        #expect(ls.apiBaseURL == "https://api.lemonsqueezy.com")
        #expect(ls.testMode == false)
        #expect(ls.storeCurrency == "USD")
        let ps = try #require(configuration.paystack)
        #expect(ps.apiBaseURL == "https://api.paystack.co")
        #expect(ps.webhookIPAllowList == nil)
        // Secrets never print.
        #expect(!"\(configuration)".contains("SECRET-"))
    }

    @Test func overridesAndTheTutorialsStoreIDSpelling() throws {
        var environment = Self.ls
        environment["LEMONSQUEEZY_STORE_ID"] = nil
        environment["LEMON_SQUEEZY_STORE_ID"] = " 77 "
        environment["LEMONSQUEEZY_API_BASE_URL"] = "http://127.0.0.1:8090/lemonsqueezy/"
        environment["LEMONSQUEEZY_TEST_MODE"] = "true"
        environment["PAYSTACK_SECRET_KEY"] = "sk_test_x"
        environment["PAYSTACK_API_BASE_URL"] = "http://127.0.0.1:8090/paystack"
        environment["PAYSTACK_WEBHOOK_IP_ALLOWLIST"] = "52.31.139.75,52.49.173.169, 52.214.14.220"
        let configuration = try ProviderSettings.configuration(environment)
        #expect(configuration.lemonSqueezy?.storeID == "77")
        #expect(configuration.lemonSqueezy?.apiBaseURL == "http://127.0.0.1:8090/lemonsqueezy")
        #expect(configuration.lemonSqueezy?.testMode == true)
        #expect(configuration.paystack?.apiBaseURL == "http://127.0.0.1:8090/paystack")
        #expect(configuration.paystack?.webhookIPAllowList?.addresses == PaystackConfiguration.documentedWebhookIPs)
        // Every boolean setting takes the same words (BooleanSetting), ConfigReader's included.
        for (text, expected) in [("on", true), ("OFF", false), ("1", true), ("no", false)] {
            environment["LEMONSQUEEZY_TEST_MODE"] = text
            #expect(try ProviderSettings.configuration(environment).lemonSqueezy?.testMode == expected, "\(text)")
        }
    }

    @Test func onlyPaystack() throws {
        let configuration = try ProviderSettings.configuration(Self.ps.merging(["LEMONSQUEEZY_API_BASE_URL": "https://example.com"]) { a, _ in a })
        #expect(configuration.enabledProviders == [.paystack])
        #expect(configuration.lemonSqueezy == nil)
    }

    @Test func nothingConfiguredIsAProblem() {
        let found = problems(["PATH": "/usr/bin", "LEMONSQUEEZY_API_KEY": "  "])
        #expect(found.count == 1)
        #expect(found.first?.contains("no payment provider configured") == true)
    }

    @Test func everyProblemIsReportedAtOnceWithoutSecrets() {
        let environment = [
            "LEMONSQUEEZY_API_KEY": "ls-key-zz9-value-1",
            "LEMONSQUEEZY_STORE_ID": "store-zz9-value",
            "LEMON_SQUEEZY_STORE_ID": "9",
            "LEMONSQUEEZY_API_BASE_URL": "ftp://user:zz9-value@host",
            "LEMONSQUEEZY_TEST_MODE": "maybe",
            "LEMONSQUEEZY_STORE_CURRENCY": "dollars",
            "PAYSTACK_SECRET_KEY": "pk_test_zz9-value",
            "PAYSTACK_API_BASE_URL": "not a url",
            "PAYSTACK_WEBHOOK_IP_ALLOWLIST": "1.2.3.4, nonsense",
        ]
        let found = problems(environment)
        let expectedNames = [
            "LEMONSQUEEZY_WEBHOOK_SECRET is not set", "LEMONSQUEEZY_STORE_ID differs from LEMON_SQUEEZY_STORE_ID",
            "LEMONSQUEEZY_STORE_ID must be a positive integer",
            "LEMONSQUEEZY_API_BASE_URL must be", "LEMONSQUEEZY_TEST_MODE expected one of true, false, 1, 0, yes, no, on, off",
            "LEMONSQUEEZY_STORE_CURRENCY must be",
            "PAYSTACK_SECRET_KEY holds a public key", "PAYSTACK_API_BASE_URL must be", "PAYSTACK_WEBHOOK_IP_ALLOWLIST entry 2",
        ]
        for name in expectedNames {
            #expect(found.contains { $0.hasPrefix(name) }, "missing problem: \(name) in \(found)")
        }
        #expect(found.count == expectedNames.count, "\(found)")
        #expect(!found.joined().contains("zz9"))
        let error = #expect(throws: ProviderSettings.Refused.self) { try ProviderSettings.configuration(environment) }
        #expect(error?.description.contains("zz9") == false)
    }

    @Test func halfConfiguredLemonSqueezyNamesEachMissingVariable() {
        let found = problems(["LEMONSQUEEZY_WEBHOOK_SECRET": "x", "PAYSTACK_SECRET_KEY": "sk_test_y"])
        #expect(found.count == 2)
        #expect(found.contains { $0.hasPrefix("LEMONSQUEEZY_API_KEY is not set") })
        #expect(found.contains { $0.hasPrefix("LEMONSQUEEZY_STORE_ID is not set") })
        #expect(
            problems(["PAYSTACK_WEBHOOK_IP_ALLOWLIST": "1.2.3.4"]).contains("PAYSTACK_WEBHOOK_IP_ALLOWLIST is set but PAYSTACK_SECRET_KEY is not"))
    }

    @Test func registryHoldsTheEnabledProviders() throws {
        let configuration = try ProviderSettings.configuration(Self.ps)
        let registry = ProviderRegistry(configuration: configuration, httpClient: .init())
        #expect(registry.enabled == [.paystack])
        #expect(registry[.paystack]?.provider == .paystack)
        #expect(registry[.lemonsqueezy] == nil)
        #expect(registry.verifier(for: .paystack)?.signatureHeader == "x-paystack-signature")
        #expect(registry.verifier(for: .lemonsqueezy) == nil)
        #expect(throws: ProviderError.self) { try registry.client(for: .lemonsqueezy) }
        // Printing or dumping a client never shows the key.
        let client = try #require(registry[.paystack])
        var dumped = ""
        dump(client, to: &dumped)
        #expect(!"\(client)".contains("SECRET-3") && !String(reflecting: client).contains("SECRET-3") && !dumped.contains("SECRET-3"), "\(dumped)")
    }
}
