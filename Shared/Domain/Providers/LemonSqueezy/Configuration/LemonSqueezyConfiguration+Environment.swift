import ServiceSettings
import Webhooks
import BillingModel

extension LemonSqueezyConfiguration {
    /// The credentials that enable Lemon Squeezy for `uses`: `LEMONSQUEEZY_API_KEY`
    /// and `LEMONSQUEEZY_STORE_ID` for ``ProviderUses/api``,
    /// `LEMONSQUEEZY_WEBHOOK_SECRET` for ``ProviderUses/webhooks``.
    static func enablingSettings(for uses: ProviderUses) -> [Setting] {
        (uses.contains(.api) ? [.lemonSqueezyAPIKey, .lemonSqueezyStoreID] : []) + (uses.contains(.webhooks) ? [.lemonSqueezyWebhookSecret] : [])
    }

    /// The secrets `uses` reads: the API key, the webhook signing secret.
    static func secretSettings(for uses: ProviderUses) -> [Setting] {
        (uses.contains(.api) ? [.lemonSqueezyAPIKey] : []) + (uses.contains(.webhooks) ? [.lemonSqueezyWebhookSecret] : [])
    }

    /// Reads Lemon Squeezy's settings for `uses` (``ProvidersConfiguration/fromEnvironment(_:uses:)``
    /// says the rules); problems go to `reader`.
    /// - Returns: `mentioned` when any of its credentials is set; `configuration`
    ///   when every credential `uses` needs is set.
    static func fromEnvironment(_ reader: inout ConfigReader, uses: ProviderUses) -> (configuration: Self?, mentioned: Bool) {
        let api = uses.contains(.api), webhooks = uses.contains(.webhooks)
        let key = api ? reader.trimmedSecret(.lemonSqueezyAPIKey) : nil
        let secret = webhooks ? reader.trimmedSecret(.lemonSqueezyWebhookSecret) : nil
        var store = api ? reader.trimmedString(.lemonSqueezyStoreID) : nil
        if api, let alias = reader.trimmedString(.lemonSqueezyStoreIDAlias) {
            if let primary = store, primary != alias {
                reader.report(.lemonSqueezyStoreID, "differs from LEMON_SQUEEZY_STORE_ID (the seed tutorial's name); set only one")
            }
            store = store ?? alias
        }
        guard key != nil || secret != nil || store != nil else { return (nil, false) }
        var missing: [Setting] = []
        if api, key == nil { missing.append(.lemonSqueezyAPIKey) }
        if api, store == nil { missing.append(.lemonSqueezyStoreID) }
        if webhooks, secret == nil { missing.append(.lemonSqueezyWebhookSecret) }
        for setting in missing {
            reader.report(setting, "is not set (Lemon Squeezy needs \(Setting.listed(enablingSettings(for: uses))) together)")
        }
        if let store, !(store.count <= 20 && store.allSatisfy({ $0.isASCII && $0.isNumber }) && store.contains(where: { $0 != "0" })) {
            reader.report(.lemonSqueezyStoreID, "must be a positive integer")
        }
        var base = defaultAPIBaseURL, testMode = false, currency = "USD"
        if api {
            base = reader.baseURL(.lemonSqueezyAPIBaseURL, default: base)
            testMode = reader.bool(.lemonSqueezyTestMode, default: false)
            currency = reader.trimmedString(.lemonSqueezyStoreCurrency) ?? currency
            if !(currency.count == 3 && currency.allSatisfy({ $0.isASCII && $0.isLetter })) {
                reader.report(.lemonSqueezyStoreCurrency, "must be a three-letter ISO 4217 code")
            }
        }
        guard missing.isEmpty else { return (nil, true) }
        let configuration = Self(apiKey: key, storeID: store, webhookSecret: secret, apiBaseURL: base, testMode: testMode, storeCurrency: currency)
        return (configuration, true)
    }
}

extension LemonSqueezyWebhookVerifier {
    /// Nil when the configuration has no webhook secret (a service that
    /// verifies no webhooks never reads one).
    public init?(configuration: LemonSqueezyConfiguration) {
        guard let secret = configuration.webhookSecret else { return nil }
        self.init(secret: secret)
    }
}

extension LemonSqueezyConfiguration: ProviderConfigurationValue {
    public var provider: Provider { .lemonsqueezy }

    public var webhookVerifier: (any WebhookVerifier)? { LemonSqueezyWebhookVerifier(configuration: self) }

    /// None: test-mode and live-mode API keys look alike, and only the API
    /// can tell them apart (`LEMONSQUEEZY_TEST_MODE` is how checkouts are made,
    /// not what the key is).
    public var credentialMode: CredentialMode? { nil }
}

extension LemonSqueezyProvider: ConfigurationProviding {
    public var settingsStem: String { "LEMONSQUEEZY" }

    public func settings(for uses: ProviderUses) -> [Setting] {
        (uses.contains(.api)
            ? [
                .lemonSqueezyAPIKey, .lemonSqueezyStoreID, .lemonSqueezyStoreIDAlias, .lemonSqueezyAPIBaseURL, .lemonSqueezyTestMode,
                .lemonSqueezyStoreCurrency,
            ] : []) + (uses.contains(.webhooks) ? [.lemonSqueezyWebhookSecret] : [])
    }

    public func enablingSettings(for uses: ProviderUses) -> [Setting] { LemonSqueezyConfiguration.enablingSettings(for: uses) }

    public func secretSettings(for uses: ProviderUses) -> [Setting] { LemonSqueezyConfiguration.secretSettings(for: uses) }

    public func readConfiguration(
        _ reader: inout ConfigReader, uses: ProviderUses
    ) -> (configuration: (any ProviderConfigurationValue)?, mentioned: Bool) {
        let read = LemonSqueezyConfiguration.fromEnvironment(&reader, uses: uses)
        return (read.configuration, read.mentioned)
    }
}

extension ProvidersConfiguration {
    /// Lemon Squeezy's configuration, when it is enabled.
    public var lemonSqueezy: LemonSqueezyConfiguration? { configuration(LemonSqueezyConfiguration.self) }
}
