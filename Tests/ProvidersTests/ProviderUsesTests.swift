import HTTPClient
import BillingModel
import ProviderConfiguration
import Providers
import ServiceRuntime
import Testing
import ServiceSettings
import Webhooks

/// Each service reads only the provider settings of what it does with them:
/// API callers (catalog, checkout, reconciler) need no webhook secret, the
/// receiver needs no API key or store id, and neither reads the other's.
@Suite struct ProviderUsesTests {
    static let lsAPI = ["LEMONSQUEEZY_API_KEY": "ls-key-zz9-1", "LEMONSQUEEZY_STORE_ID": "12345"]
    static let lsWebhook = ["LEMONSQUEEZY_WEBHOOK_SECRET": "ls-whsec-zz9-2"]
    static let ps = ["PAYSTACK_SECRET_KEY": "sk_test_zz9-3"]

    /// Each problem's message (they name the variables they are about).
    static func problems(_ environment: [String: String], uses: ProviderUses) -> [String] {
        ProviderSettings.read(environment, uses: uses).problems.map {
            $0.message.hasPrefix("no payment provider") ? $0.message : "\($0.variable) \($0.message)"
        }
    }

    @Test func anAPICallerNeedsNoWebhookSecretAndBuildsNoVerifierFromIt() throws {
        let configuration = try ProviderSettings.configuration(Self.lsAPI.merging(Self.ps) { a, _ in a }, uses: .api)
        #expect(configuration.enabledProviders == [.lemonsqueezy, .paystack])
        let ls = try #require(configuration.lemonSqueezy)
        #expect(ls.apiKey?.reveal() == "ls-key-zz9-1" && ls.storeID == "12345" && ls.webhookSecret == nil)
        let registry = ProviderRegistry(configuration: configuration, httpClient: .init())
        #expect(registry.enabled == [.lemonsqueezy, .paystack])
        #expect(registry.verifier(for: .lemonsqueezy) == nil)
        // A webhook secret set anyway is not read, and neither is the receiver's allow-list.
        let ignoring = try ProviderSettings.configuration(
            Self.lsAPI.merging(["LEMONSQUEEZY_WEBHOOK_SECRET": "x", "PAYSTACK_SECRET_KEY": "sk_test_1", "PAYSTACK_WEBHOOK_IP_ALLOWLIST": "nonsense"])
            { a, _ in a },
            uses: .api)
        #expect(ignoring.lemonSqueezy?.webhookSecret == nil)
        #expect(ignoring.paystack?.webhookIPAllowList == nil)
    }

    @Test func theReceiverNeedsOnlyTheWebhookSecrets() throws {
        let configuration = try ProviderSettings.configuration(Self.lsWebhook.merging(Self.ps) { a, _ in a }, uses: .webhooks)
        #expect(configuration.enabledProviders == [.lemonsqueezy, .paystack])
        let ls = try #require(configuration.lemonSqueezy)
        #expect(ls.webhookSecret?.reveal() == "ls-whsec-zz9-2" && ls.apiKey == nil && ls.storeID == nil)
        #expect(LemonSqueezyWebhookVerifier(configuration: ls) != nil)
        // No Lemon Squeezy API client without its key; Paystack signs with its API key, so it has both.
        let registry = ProviderRegistry(configuration: configuration, httpClient: .init())
        #expect(registry.enabled == [.paystack])
        #expect(registry.verifier(for: .lemonsqueezy)?.signatureHeader == "x-signature")
        // API settings are not read: a malformed one is no problem here.
        #expect(
            Self.problems(
                Self.lsWebhook.merging([
                    "LEMONSQUEEZY_API_BASE_URL": "not a url", "LEMONSQUEEZY_STORE_ID": "abc",
                    "PAYSTACK_SECRET_KEY": "sk_test_1", "PAYSTACK_API_BASE_URL": "nope",
                ]) { a, _ in a },
                uses: .webhooks
            ).isEmpty)
        // An API key alone configures nothing for the receiver.
        let apiOnly = Self.problems(Self.lsAPI, uses: .webhooks)
        #expect(apiOnly.count == 1 && apiOnly[0].hasPrefix("no payment provider configured: set LEMONSQUEEZY_WEBHOOK_SECRET"), "\(apiOnly)")
    }

    @Test func halfConfiguredNamesOnlyWhatTheseUsesNeed() {
        let catalog = Self.problems(["LEMONSQUEEZY_API_KEY": "k"], uses: .api)
        #expect(
            catalog == ["LEMONSQUEEZY_STORE_ID is not set (Lemon Squeezy needs LEMONSQUEEZY_API_KEY and LEMONSQUEEZY_STORE_ID together)"],
            "\(catalog)")
        let both = Self.problems(["LEMONSQUEEZY_API_KEY": "k"], uses: .all)
        #expect(
            both.count == 2
                && both.allSatisfy { $0.contains("LEMONSQUEEZY_API_KEY, LEMONSQUEEZY_STORE_ID and LEMONSQUEEZY_WEBHOOK_SECRET together") },
            "\(both)")
        #expect(Self.problems(["LEMONSQUEEZY_STORE_ID": "1"], uses: .webhooks).first?.hasPrefix("no payment provider configured") == true)
    }

    @Test func theSecretVariablesOfEachUse() {
        #expect(ProviderUses.api.secretVariables == ["LEMONSQUEEZY_API_KEY", "PAYSTACK_SECRET_KEY", "STRIPE_SECRET_KEY"])
        #expect(ProviderUses.webhooks.secretVariables == ["LEMONSQUEEZY_WEBHOOK_SECRET", "PAYSTACK_SECRET_KEY", "STRIPE_WEBHOOK_SECRET"])
        #expect(ProviderUses.api.unusedSecretVariables == ["LEMONSQUEEZY_WEBHOOK_SECRET", "STRIPE_WEBHOOK_SECRET"])
        #expect(ProviderUses.webhooks.unusedSecretVariables == ["LEMONSQUEEZY_API_KEY", "STRIPE_SECRET_KEY"])
    }

    /// Through the services' reader: the other use's secret files are never
    /// opened, so a service starts without access to them.
    @Test func theServicesReaderOpensOnlyItsOwnSecretFiles() throws {
        var catalog = ConfigReader(
            Environment(
                Self.lsAPI.merging(Self.ps) { a, _ in a }
                    .merging(["LEMONSQUEEZY_WEBHOOK_SECRET_FILE": "/nonexistent/webhook-secret"]) { a, _ in a }))
        let catalogConfiguration = ProvidersConfiguration.fromEnvironment(&catalog, uses: .api)
        #expect(catalog.problems.isEmpty, "\(catalog.problems)")
        #expect(catalogConfiguration?.lemonSqueezy?.webhookSecret == nil)

        var receiver = ConfigReader(
            Environment(
                Self.lsWebhook.merging(Self.ps) { a, _ in a }
                    .merging(["LEMONSQUEEZY_API_KEY_FILE": "/nonexistent/api-key", "LEMONSQUEEZY_API_KEY": "also-set"]) { a, _ in a }))
        let receiverConfiguration = ProvidersConfiguration.fromEnvironment(&receiver, uses: .webhooks)
        #expect(receiver.problems.isEmpty, "\(receiver.problems)")
        #expect(receiverConfiguration?.lemonSqueezy?.apiKey == nil)

        // Its own secret's file is read, and a bad one is reported by name.
        var broken = ConfigReader(Environment(["LEMONSQUEEZY_WEBHOOK_SECRET_FILE": "/nonexistent/webhook-secret"]))
        #expect(ProvidersConfiguration.fromEnvironment(&broken, uses: .webhooks) == nil)
        #expect(broken.problems.map(\.variable).contains("LEMONSQUEEZY_WEBHOOK_SECRET_FILE"), "\(broken.problems)")

        // Nothing for these uses: the problem names what to set.
        var nothing = ConfigReader(Environment(Self.lsAPI))
        #expect(ProvidersConfiguration.fromEnvironment(&nothing, uses: .webhooks) == nil)
        #expect(
            nothing.problems.map(\.variable) == ["PROVIDERS"] || nothing.problems.first?.message.contains("LEMONSQUEEZY_WEBHOOK_SECRET") == true,
            "\(nothing.problems)")
        #expect(!nothing.problems.description.contains("zz9"))
    }
}
