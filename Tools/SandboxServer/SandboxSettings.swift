import Timing
import ServiceSettings

// The provider sandbox's settings (ProviderSandboxSettings.fromEnvironment); its provider secrets are the ones the sandbox expects, with well-known local defaults.

extension Setting {
    public static let sandboxHost = Setting(
        "SANDBOX_HOST", default: "127.0.0.1", "address the sandbox listens on")
    public static let sandboxPort = Setting(
        "SANDBOX_PORT", default: "8090", "port the sandbox listens on")
    public static let sandboxPublicURL = Setting(
        "SANDBOX_PUBLIC_URL", "the sandbox's URL as buyers' browsers see it (in checkout URLs); unset: http://127.0.0.1:SANDBOX_PORT")
    public static let sandboxLemonSqueezyAPIKey = Setting(
        "LEMONSQUEEZY_API_KEY", default: "the local stack's", secret: true, "the API key the emulated Lemon Squeezy accepts")
    public static let sandboxLemonSqueezyWebhookSecret = Setting(
        "LEMONSQUEEZY_WEBHOOK_SECRET", default: "the local stack's", secret: true, "the secret the emulated Lemon Squeezy signs webhooks with")
    public static let sandboxLemonSqueezyWebhookURL = Setting(
        "LEMONSQUEEZY_WEBHOOK_URL", "where the emulated Lemon Squeezy delivers webhooks; unset: none")
    public static let sandboxPaystackSecretKey = Setting(
        "PAYSTACK_SECRET_KEY", default: "the local stack's", secret: true, "the secret key the emulated Paystack accepts and signs webhooks with")
    public static let sandboxPaystackWebhookURL = Setting(
        "PAYSTACK_WEBHOOK_URL", "where the emulated Paystack delivers webhooks; unset: none")
    public static let sandboxStripeSecretKey = Setting(
        "STRIPE_SECRET_KEY", default: "the local stack's", secret: true, "the secret key the emulated Stripe accepts (sk_test_…)")
    public static let sandboxStripeWebhookSecret = Setting(
        "STRIPE_WEBHOOK_SECRET", default: "the local stack's", secret: true, "the endpoint secret (whsec_…) the emulated Stripe signs webhooks with")
    public static let sandboxStripeWebhookURL = Setting(
        "STRIPE_WEBHOOK_URL", "where the emulated Stripe delivers webhooks; unset: none")
    public static let sandboxAppleIssuerID = Setting(
        "APP_STORE_CONNECT_ISSUER_ID", default: "sandbox-issuer", "the issuer id (iss) the emulated External Purchase Server API accepts")
    public static let sandboxAppleKeyID = Setting(
        "APP_STORE_CONNECT_KEY_ID", default: "SANDBOXKEY", "the API key id (kid) the emulated External Purchase Server API accepts")
    public static let sandboxApplePrivateKey = Setting(
        "APP_STORE_CONNECT_PRIVATE_KEY", secret: true,
        "the App Store Connect API key (P-256, PEM) whose tokens the emulated External Purchase Server API accepts; the sandbox keeps only its public half (unset: every token is refused)"
    )
    public static let sandboxAppleBundleID = Setting(
        "APP_STORE_BUNDLE_ID", default: "com.example.storefront", "the bundle id (bid) the emulated External Purchase Server API accepts")
    public static let sandboxRateLimit = Setting(
        "SANDBOX_RATE_LIMIT", "requests per window each emulated API allows before 429; unset: no limit")
    public static let sandboxRateWindow = Setting(
        "SANDBOX_RATE_WINDOW", default: "60", "seconds of the rate-limit window")
    public static let sandboxRetryTimeScale = Setting(
        "SANDBOX_RETRY_TIME_SCALE", default: "1", "factor applied to the providers' webhook retry delays (0.01 makes tests fast)")
    public static let sandboxCatalogFile = Setting(
        "SANDBOX_CATALOG_FILE", "JSON file of the products to emulate; unset: the built-in catalog")
}

extension SettingGroup {
    public static let sandbox = SettingGroup(
        "Provider sandbox",
        [
            .sandboxHost, .sandboxPort, .sandboxPublicURL, .sandboxLemonSqueezyAPIKey, .sandboxLemonSqueezyWebhookSecret,
            .sandboxLemonSqueezyWebhookURL, .sandboxPaystackSecretKey, .sandboxPaystackWebhookURL, .sandboxStripeSecretKey,
            .sandboxStripeWebhookSecret, .sandboxStripeWebhookURL, .sandboxAppleIssuerID, .sandboxAppleKeyID, .sandboxApplePrivateKey,
            .sandboxAppleBundleID, .sandboxRateLimit, .sandboxRateWindow,
            .sandboxRetryTimeScale, .sandboxCatalogFile,
        ])
}
