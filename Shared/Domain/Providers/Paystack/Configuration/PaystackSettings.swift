import ServiceSettings

// Paystack's settings (PaystackConfiguration.fromEnvironment), in the groups of ProviderSettings.swift.

extension Setting {
    public static let paystackSecretKey = Setting(
        "PAYSTACK_SECRET_KEY", secret: true,
        "Paystack secret key (sk_test_ or sk_live_): calls its API and verifies its webhooks (Paystack signs them with it); enables Paystack")
    public static let paystackAPIBaseURL = Setting(
        "PAYSTACK_API_BASE_URL", default: "https://api.paystack.co", "Paystack API base URL (the sandbox's locally)")
    public static let paystackWebhookIPAllowlist = Setting(
        "PAYSTACK_WEBHOOK_IP_ALLOWLIST", "comma-separated addresses or CIDRs Paystack webhooks may come from; unset: any")
}
