import ServiceSettings

/// Settings of the Lemon Squeezy client and webhook verifier.
public struct LemonSqueezyConfiguration: Sendable {
    /// The documented API host; paths add `/v1/…`.
    public static let defaultAPIBaseURL = "https://api.lemonsqueezy.com"

    /// `Authorization: Bearer …` (`LEMONSQUEEZY_API_KEY`); nil in a service
    /// that makes no API calls (``ProviderUses/api``).
    public var apiKey: Secret?
    /// The numeric store id (`LEMONSQUEEZY_STORE_ID`, alias `LEMON_SQUEEZY_STORE_ID`);
    /// nil with ``apiKey``.
    public var storeID: String?
    /// Signs `X-Signature` (`LEMONSQUEEZY_WEBHOOK_SECRET`); nil in a service
    /// that verifies no webhooks (``ProviderUses/webhooks``).
    public var webhookSecret: Secret?
    /// Without trailing slash (`LEMONSQUEEZY_API_BASE_URL`); the sandbox serves `…/lemonsqueezy`.
    public var apiBaseURL: String
    /// Create checkouts in test mode (`LEMONSQUEEZY_TEST_MODE`).
    public var testMode: Bool
    /// The store's currency (`LEMONSQUEEZY_STORE_CURRENCY`, default USD). Product
    /// and variant objects carry prices in the store currency but do not name it.
    public var storeCurrency: String

    /// Whether the API client can be built (key and store id set).
    public var hasAPICredentials: Bool { apiKey != nil && storeID != nil }

    public init(
        apiKey: Secret?, storeID: String?, webhookSecret: Secret?, apiBaseURL: String = Self.defaultAPIBaseURL, testMode: Bool = false,
        storeCurrency: String = "USD"
    ) {
        self.apiKey = apiKey
        self.storeID = storeID
        self.webhookSecret = webhookSecret
        self.apiBaseURL = apiBaseURL.hasSuffix("/") ? String(apiBaseURL.dropLast()) : apiBaseURL
        self.testMode = testMode
        self.storeCurrency = storeCurrency.uppercased()
    }
}
