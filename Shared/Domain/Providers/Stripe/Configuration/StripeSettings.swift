import BillingModel
import ServiceSettings

// Stripe's settings (StripeConfiguration.fromEnvironment), in the groups of ProviderSettings.swift.

extension Setting {
    public static let stripeSecretKey = Setting(
        "STRIPE_SECRET_KEY", secret: true,
        "Stripe secret key (sk_test_ or sk_live_, or a restricted rk_ key): calls its API; with STRIPE_WEBHOOK_SECRET, enables Stripe")
    public static let stripeWebhookSecret = Setting(
        "STRIPE_WEBHOOK_SECRET", secret: true,
        "Stripe webhook endpoint signing secret (whsec_…); several, comma-separated, while rotating it")
    public static let stripeAPIBaseURL = Setting(
        "STRIPE_API_BASE_URL", default: "https://api.stripe.com", "Stripe API base URL (the sandbox's locally)")
    public static let stripeReturnURL = Setting(
        "STRIPE_RETURN_URL",
        "where Stripe Checkout sends the buyer when CHECKOUT_REDIRECT_URL is unset, and the billing portal's way back; unset: the portal's own")
    public static let stripeAutomaticTax = Setting(
        "STRIPE_AUTOMATIC_TAX", default: "off",
        "on: Checkout sessions compute tax with Stripe Tax (automatic_tax[enabled]=true; needs Stripe Tax set up on the account); off: no tax")
    public static let stripeAllowPromotionCodes = Setting(
        "STRIPE_ALLOW_PROMOTION_CODES", default: "off",
        "on: a Checkout session created without a promotionCode shows Stripe's own promotion code field (allow_promotion_codes); off: it does not")
}
