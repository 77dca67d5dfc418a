import CryptoPrimitives
import SandboxKit
import ServiceRuntime
import ServiceSettings

/// Everything `provider-sandbox` reads from its environment.
public struct ProviderSandboxSettings: Sendable {
    public var sandbox: SandboxConfiguration
    public var catalogFile: String?
    public var bindAddress: String
    public var port: Int

    public init(sandbox: SandboxConfiguration = SandboxConfiguration(), catalogFile: String? = nil, bindAddress: String = "127.0.0.1", port: Int = 0)
    {
        self.sandbox = sandbox
        self.catalogFile = catalogFile
        self.bindAddress = bindAddress
        self.port = port
    }

    /// Reads `SANDBOX_HOST` (127.0.0.1), `SANDBOX_PORT` (8090), `SANDBOX_PUBLIC_URL`
    /// (http://127.0.0.1:<port>), `SANDBOX_CATALOG_FILE`, `SANDBOX_RETRY_TIME_SCALE` (1),
    /// `SANDBOX_RATE_LIMIT` (requests per `SANDBOX_RATE_WINDOW` seconds; unset: unlimited),
    /// the keys clients must present and that sign webhooks (`LEMONSQUEEZY_API_KEY`,
    /// `LEMONSQUEEZY_WEBHOOK_SECRET`, `PAYSTACK_SECRET_KEY`, `STRIPE_SECRET_KEY`, `STRIPE_WEBHOOK_SECRET`,
    /// each with a sandbox default) and where webhooks go (`LEMONSQUEEZY_WEBHOOK_URL`,
    /// `PAYSTACK_WEBHOOK_URL`, `STRIPE_WEBHOOK_URL`), and the App Store Connect API key the
    /// emulated External Purchase Server API accepts (`APP_STORE_CONNECT_ISSUER_ID`,
    /// `APP_STORE_CONNECT_KEY_ID`, `APP_STORE_CONNECT_PRIVATE_KEY`, `APP_STORE_BUNDLE_ID`).
    public static func fromEnvironment(_ reader: inout ConfigReader) -> ProviderSandboxSettings {
        var settings = ProviderSandboxSettings()
        settings.bindAddress = reader.string(.sandboxHost, default: "127.0.0.1")
        settings.port = reader.int(.sandboxPort, default: 8090, in: 0...65_535)
        let publicURL = reader.string(.sandboxPublicURL, default: "http://127.0.0.1:\(settings.port)")
        var lemonSqueezy = LemonSqueezySettings()
        lemonSqueezy.apiKey = reader.secret(.sandboxLemonSqueezyAPIKey)?.reveal() ?? lemonSqueezy.apiKey
        lemonSqueezy.webhookSecret = reader.secret(.sandboxLemonSqueezyWebhookSecret)?.reveal() ?? lemonSqueezy.webhookSecret
        lemonSqueezy.webhookURL = reader.string(.sandboxLemonSqueezyWebhookURL)
        var paystack = PaystackSettings()
        paystack.secretKey = reader.secret(.sandboxPaystackSecretKey)?.reveal() ?? paystack.secretKey
        paystack.webhookURL = reader.string(.sandboxPaystackWebhookURL)
        var stripe = StripeSettings()
        stripe.secretKey = reader.secret(.sandboxStripeSecretKey)?.reveal() ?? stripe.secretKey
        stripe.webhookSecret = reader.secret(.sandboxStripeWebhookSecret)?.reveal() ?? stripe.webhookSecret
        stripe.webhookURL = reader.string(.sandboxStripeWebhookURL)
        var apple = AppleSettings()
        apple.issuerID = reader.string(.sandboxAppleIssuerID, default: apple.issuerID)
        apple.keyID = reader.string(.sandboxAppleKeyID, default: apple.keyID)
        apple.bundleID = reader.string(.sandboxAppleBundleID, default: apple.bundleID)
        // Only the public half is kept: the sandbox verifies, it never signs.
        apple.publicKeyPEM = reader.secret(.sandboxApplePrivateKey).flatMap { try? RecordSigner(privateKeyPEM: $0.reveal()).publicKeyPEM() }
        let rateLimit = reader.int(.sandboxRateLimit, in: 1...1_000_000).map {
            RateLimitSettings(limit: $0, windowSeconds: reader.int(.sandboxRateWindow, default: 60, in: 1...3600))
        }
        settings.sandbox = SandboxConfiguration(
            publicBaseURL: publicURL, lemonSqueezy: lemonSqueezy, paystack: paystack, stripe: stripe, apple: apple, rateLimit: rateLimit,
            retryTimeScale: reader.double(.sandboxRetryTimeScale, default: 1))
        settings.catalogFile = reader.string(.sandboxCatalogFile)
        return settings
    }
}
