import Webhooks

extension LemonSqueezyWebhookVerifier {
    /// Nil when the configuration has no webhook secret (a service that
    /// verifies no webhooks never reads one).
    public init?(configuration: LemonSqueezyConfiguration) {
        guard let secret = configuration.webhookSecret else { return nil }
        self.init(secret: secret)
    }
}

extension PaystackWebhookVerifier {
    public init(configuration: PaystackConfiguration) {
        self.init(secretKey: configuration.secretKey, allowList: configuration.webhookIPAllowList)
    }
}
