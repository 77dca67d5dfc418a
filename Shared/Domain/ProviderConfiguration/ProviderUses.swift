import Timing
import BillingModel
import ServiceSettings
/// What a service does with the payment providers, and so which of their
/// credentials it reads: each service asks only for its own uses, so it
/// neither needs nor reads the others' secrets (the catalog never sees a
/// webhook signing secret, the receiver never an API key it does not sign with).
public struct ProviderUses: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Calls the providers' APIs: Lemon Squeezy `LEMONSQUEEZY_API_KEY` and
    /// `LEMONSQUEEZY_STORE_ID` (with `LEMONSQUEEZY_API_BASE_URL`,
    /// `LEMONSQUEEZY_TEST_MODE`, `LEMONSQUEEZY_STORE_CURRENCY`); Paystack
    /// `PAYSTACK_SECRET_KEY` (with `PAYSTACK_API_BASE_URL`).
    public static let api = ProviderUses(rawValue: 1 << 0)
    /// Verifies the providers' webhooks: Lemon Squeezy
    /// `LEMONSQUEEZY_WEBHOOK_SECRET`; Paystack `PAYSTACK_SECRET_KEY` (Paystack
    /// signs webhooks with the API's secret key) with `PAYSTACK_WEBHOOK_IP_ALLOWLIST`.
    public static let webhooks = ProviderUses(rawValue: 1 << 1)
    /// Both (tests, tools).
    public static let all: ProviderUses = [.api, .webhooks]

    /// The secret settings these uses read (each may instead come from `<NAME>_FILE`).
    public var secretSettings: [Setting] {
        Provider.allCases.flatMap { $0.configurationRules.secretSettings(for: self) }
    }

    public var secretVariables: [String] { secretSettings.map(\.name) }

    /// The settings groups these uses read, for a binary's declared list.
    public var settingGroups: [SettingGroup] {
        (contains(.api) ? [.providerAPI] : []) + (contains(.webhooks) ? [.providerWebhooks] : [])
    }

    /// The provider secret variables these uses never read.
    public var unusedSecretVariables: [String] {
        ProviderUses.all.secretVariables.filter { !secretVariables.contains($0) }
    }
}
