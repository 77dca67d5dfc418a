import ServiceSettings

// Lemon Squeezy's settings (LemonSqueezyConfiguration.fromEnvironment), in the groups of ProviderSettings.swift.

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
    public static let lemonSqueezyWebhookSecret = Setting(
        "LEMONSQUEEZY_WEBHOOK_SECRET", secret: true, "the signing secret of the Lemon Squeezy webhook; enables Lemon Squeezy")
}
