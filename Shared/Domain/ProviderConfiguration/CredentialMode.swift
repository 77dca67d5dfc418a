import BillingModel
import ServiceSettings

/// What a configured provider's credential shows about whether the
/// deployment takes real money: some providers' keys say whether they are
/// test or live keys (Paystack's and Stripe's `sk_test_…` and `sk_live_…`); others' do
/// not offline (Lemon Squeezy's), and give none.
public struct CredentialMode: Sendable, Hashable {
    public var provider: Provider
    /// The setting holding the credential: named in problems, its value never.
    public var setting: Setting
    /// True for a live key, false for a test key, nil when the key carries
    /// neither of the provider's documented marks.
    public var isLive: Bool?
    /// The provider's marks, for messages: `sk_test_`, `sk_live_`.
    public var testMark: String
    public var liveMark: String

    public init(provider: Provider, setting: Setting, isLive: Bool?, testMark: String, liveMark: String) {
        self.provider = provider
        self.setting = setting
        self.isLive = isLive
        self.testMark = testMark
        self.liveMark = liveMark
    }
}

extension ProvidersConfiguration {
    /// The mode each enabled provider's credential shows, in ``Provider/allCases`` order.
    public var credentialModes: [CredentialMode] {
        configurations.compactMap(\.credentialMode)
    }

    public var showsLiveKeys: Bool { credentialModes.contains { $0.isLive == true } }
}
