import ServiceSettings
import Webhooks

/// Settings of the Paystack client and webhook verifier.
public struct PaystackConfiguration: Sendable {
    /// The documented API host.
    public static let defaultAPIBaseURL = "https://api.paystack.co"

    /// Paystack's documented webhook source addresses (same for test and live);
    /// a ready value for `PAYSTACK_WEBHOOK_IP_ALLOWLIST`.
    public static let documentedWebhookIPs = ["52.31.139.75", "52.49.173.169", "52.214.14.220"]

    /// Bearer key of the API; also the HMAC-SHA512 key of webhook signatures (`PAYSTACK_SECRET_KEY`).
    public var secretKey: Secret
    /// Without trailing slash (`PAYSTACK_API_BASE_URL`); the sandbox serves `…/paystack`.
    public var apiBaseURL: String
    /// Addresses webhooks may come from (`PAYSTACK_WEBHOOK_IP_ALLOWLIST`); nil: any.
    public var webhookIPAllowList: IPAllowList?

    public init(secretKey: Secret, apiBaseURL: String = Self.defaultAPIBaseURL, webhookIPAllowList: IPAllowList? = nil) {
        self.secretKey = secretKey
        self.apiBaseURL = apiBaseURL.hasSuffix("/") ? String(apiBaseURL.dropLast()) : apiBaseURL
        self.webhookIPAllowList = webhookIPAllowList
    }
}
