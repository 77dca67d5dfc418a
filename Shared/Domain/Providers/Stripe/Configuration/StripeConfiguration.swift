import BillingModel
import ServiceSettings
import Webhooks

/// Stripe's settings: what ``StripeClient`` needs to call Stripe and what the
/// receiver needs to verify its webhooks, read from the environment by
/// `StripeConfiguration+Environment.swift` (`STRIPE_SECRET_KEY`,
/// `STRIPE_WEBHOOK_SECRET`, `STRIPE_API_BASE_URL`, `STRIPE_RETURN_URL`,
/// `STRIPE_AUTOMATIC_TAX`, `STRIPE_ALLOW_PROMOTION_CODES`).
public struct StripeConfiguration: Sendable, CustomStringConvertible {
    /// Stripe's API host; paths start with `/v1`.
    public static let defaultAPIBaseURL = "https://api.stripe.com"
    /// The API version every request pins with `Stripe-Version`, so answers
    /// have the shapes `StripeProvider` reads (periods on the subscription's
    /// item, the invoice's subscription under `parent`), whatever the
    /// account's default version is. The sandbox renders the same one.
    public static let defaultAPIVersion = "2025-03-31.basil"

    /// `sk_test_…`/`sk_live_…` (or a restricted `rk_` key), sent as
    /// `Authorization: Bearer`; nil in a service that only verifies webhooks.
    public var secretKey: Secret?
    /// The webhook endpoint's signing secrets (`whsec_…`), several during a
    /// rotation; empty in a service that verifies no webhooks.
    public var webhookSecrets: [Secret]
    /// Without trailing slash (the sandbox: `http://127.0.0.1:8090/stripe`).
    public var apiBaseURL: String
    public var apiVersion: String
    /// Checkout's `success_url` when a checkout request names no redirect
    /// (Stripe requires one for a hosted session; `STRIPE_RETURN_URL`).
    public var successURL: String?
    /// Checkout's `cancel_url` (the buyer's "back" link); nil leaves it out.
    public var cancelURL: String?
    /// The Billing portal's `return_url`; nil uses ``successURL``.
    public var portalReturnURL: String?
    /// Checkout computes tax with Stripe Tax (`automatic_tax[enabled]`; `STRIPE_AUTOMATIC_TAX`).
    public var automaticTax: Bool
    /// A session created without a promotion code shows Stripe's own code
    /// field (`allow_promotion_codes`; `STRIPE_ALLOW_PROMOTION_CODES`).
    public var allowPromotionCodes: Bool

    public init(
        secretKey: Secret?, webhookSecrets: [Secret] = [], apiBaseURL: String = defaultAPIBaseURL, apiVersion: String = defaultAPIVersion,
        successURL: String? = nil, cancelURL: String? = nil, portalReturnURL: String? = nil, automaticTax: Bool = false,
        allowPromotionCodes: Bool = false
    ) {
        self.secretKey = secretKey
        self.webhookSecrets = webhookSecrets
        var base = apiBaseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.apiBaseURL = base
        self.apiVersion = apiVersion
        self.successURL = successURL
        self.cancelURL = cancelURL
        self.portalReturnURL = portalReturnURL
        self.automaticTax = automaticTax
        self.allowPromotionCodes = allowPromotionCodes
    }

    /// Test or live, from the key's prefix; nil for a key of no known kind.
    public var mode: StripeMode? { secretKey.flatMap { StripeMode(secretKey: $0.reveal()) } }

    /// Names the endpoint and the mode, never the key.
    public var description: String { "StripeConfiguration(\(apiBaseURL), \(mode?.rawValue ?? "unknown mode"), \(apiVersion))" }
}
