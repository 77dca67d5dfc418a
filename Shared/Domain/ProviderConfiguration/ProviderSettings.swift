import Timing
import ServiceSettings

// The payment providers' settings (ProvidersConfiguration.fromEnvironment): a service reads only the group of what it does with them, so the others' secrets are never read.

extension Setting {
    public static let lemonSqueezyAPIKey = Setting(
        "LEMONSQUEEZY_API_KEY", secret: true, "Lemon Squeezy API key; with LEMONSQUEEZY_STORE_ID enables Lemon Squeezy")
    public static let lemonSqueezyStoreID = Setting(
        "LEMONSQUEEZY_STORE_ID", "Lemon Squeezy store id (a positive integer)")
    public static let lemonSqueezyStoreIDAlias = Setting(
        "LEMON_SQUEEZY_STORE_ID", "the seed tutorial's name for LEMONSQUEEZY_STORE_ID (set only one)")
    public static let lemonSqueezyAPIBaseURL = Setting(
        "LEMONSQUEEZY_API_BASE_URL", default: "https://api.lemonsqueezy.com", "Lemon Squeezy API base URL (the sandbox's locally)")
    public static let lemonSqueezyTestMode = Setting(
        "LEMONSQUEEZY_TEST_MODE", default: "false", "create checkouts in Lemon Squeezy's test mode")
    public static let lemonSqueezyStoreCurrency = Setting(
        "LEMONSQUEEZY_STORE_CURRENCY", default: "USD", "the store's ISO 4217 currency, for amounts")
    public static let paystackSecretKey = Setting(
        "PAYSTACK_SECRET_KEY", secret: true,
        "Paystack secret key (sk_test_ or sk_live_): calls its API and verifies its webhooks (Paystack signs them with it); enables Paystack")
    public static let paystackAPIBaseURL = Setting(
        "PAYSTACK_API_BASE_URL", default: "https://api.paystack.co", "Paystack API base URL (the sandbox's locally)")
    public static let lemonSqueezyWebhookSecret = Setting(
        "LEMONSQUEEZY_WEBHOOK_SECRET", secret: true, "the signing secret of the Lemon Squeezy webhook; enables Lemon Squeezy")
    public static let paystackWebhookIPAllowlist = Setting(
        "PAYSTACK_WEBHOOK_IP_ALLOWLIST", "comma-separated addresses or CIDRs Paystack webhooks may come from; unset: any")
}

extension SettingGroup {
    public static let providerAPI = SettingGroup(
        "Payment providers: calling their APIs",
        [
            .lemonSqueezyAPIKey, .lemonSqueezyStoreID, .lemonSqueezyStoreIDAlias, .lemonSqueezyAPIBaseURL, .lemonSqueezyTestMode,
            .lemonSqueezyStoreCurrency, .paystackSecretKey, .paystackAPIBaseURL,
        ])
    public static let providerWebhooks = SettingGroup(
        "Payment providers: verifying their webhooks", [.lemonSqueezyWebhookSecret, .paystackSecretKey, .paystackWebhookIPAllowlist])
}
