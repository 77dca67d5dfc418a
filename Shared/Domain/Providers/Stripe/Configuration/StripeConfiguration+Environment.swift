import BillingModel
import Foundation
import ServiceSettings
import Webhooks

extension StripeConfiguration {
    /// The credentials that enable Stripe for `uses`: `STRIPE_SECRET_KEY` for
    /// ``ProviderUses/api``, `STRIPE_WEBHOOK_SECRET` for ``ProviderUses/webhooks``.
    static func enablingSettings(for uses: ProviderUses) -> [Setting] {
        (uses.contains(.api) ? [.stripeSecretKey] : []) + (uses.contains(.webhooks) ? [.stripeWebhookSecret] : [])
    }

    /// Reads Stripe's settings for `uses`; problems go to `reader`.
    /// - Returns: `mentioned` when any of its credentials is set; `configuration`
    ///   when every credential `uses` needs is set.
    static func fromEnvironment(_ reader: inout ConfigReader, uses: ProviderUses) -> (configuration: Self?, mentioned: Bool) {
        let api = uses.contains(.api), webhooks = uses.contains(.webhooks)
        let key = api ? reader.trimmedSecret(.stripeSecretKey) : nil
        let secrets = webhooks ? reader.trimmedSecret(.stripeWebhookSecret).map(Self.secrets(in:)) : nil
        guard key != nil || secrets != nil else { return (nil, false) }
        var missing: [Setting] = []
        if api, key == nil { missing.append(.stripeSecretKey) }
        if webhooks, secrets == nil { missing.append(.stripeWebhookSecret) }
        for setting in missing {
            reader.report(setting, "is not set (Stripe needs \(Setting.listed(enablingSettings(for: uses))) together)")
        }
        if let key, StripeMode(secretKey: key.reveal()) == nil {
            let publishable = key.reveal().hasPrefix("pk_")
            reader.report(
                .stripeSecretKey,
                publishable
                    ? "holds a publishable key (pk_…); the API needs the secret key (sk_…)" : "is not a Stripe secret key (sk_test_, sk_live_, rk_…)")
        }
        if let secrets, secrets.isEmpty { reader.report(.stripeWebhookSecret, "holds no secret") }
        var base = defaultAPIBaseURL, returnURL: String?, automaticTax = false, allowPromotionCodes = false
        if api {
            base = reader.baseURL(.stripeAPIBaseURL, default: base)
            returnURL = reader.trimmedString(.stripeReturnURL)
            automaticTax = reader.bool(.stripeAutomaticTax, default: false)
            allowPromotionCodes = reader.bool(.stripeAllowPromotionCodes, default: false)
        }
        guard missing.isEmpty else { return (nil, true) }
        return (
            Self(
                secretKey: key, webhookSecrets: secrets ?? [], apiBaseURL: base, successURL: returnURL, portalReturnURL: returnURL,
                automaticTax: automaticTax, allowPromotionCodes: allowPromotionCodes), true
        )
    }

    /// The comma-separated secrets of a rotation, blanks dropped.
    static func secrets(in list: Secret) -> [Secret] {
        list.reveal().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map(Secret.init)
    }
}

extension StripeConfiguration: ProviderConfigurationValue {
    public var provider: Provider { .stripe }

    public var webhookVerifier: (any WebhookVerifier)? {
        webhookSecrets.isEmpty ? nil : StripeWebhookVerifier(secrets: webhookSecrets)
    }

    /// The key's documented prefix says its mode (`sk_test_`/`rk_test_`, `sk_live_`/`rk_live_`).
    public var credentialMode: CredentialMode? {
        guard let secretKey else { return nil }
        let mode = StripeMode(secretKey: secretKey.reveal().trimmingCharacters(in: .whitespacesAndNewlines))
        return CredentialMode(
            provider: .stripe, setting: .stripeSecretKey, isLive: mode.map { $0 == .live }, testMark: "sk_test_", liveMark: "sk_live_")
    }
}

extension StripeProvider: ConfigurationProviding {
    public var settingsStem: String { "STRIPE" }

    public func settings(for uses: ProviderUses) -> [Setting] {
        (uses.contains(.api) ? [.stripeSecretKey, .stripeAPIBaseURL, .stripeReturnURL, .stripeAutomaticTax, .stripeAllowPromotionCodes] : [])
            + (uses.contains(.webhooks) ? [.stripeWebhookSecret] : [])
    }

    public func enablingSettings(for uses: ProviderUses) -> [Setting] { StripeConfiguration.enablingSettings(for: uses) }

    public func secretSettings(for uses: ProviderUses) -> [Setting] { StripeConfiguration.enablingSettings(for: uses) }

    public func readConfiguration(
        _ reader: inout ConfigReader, uses: ProviderUses
    ) -> (configuration: (any ProviderConfigurationValue)?, mentioned: Bool) {
        let read = StripeConfiguration.fromEnvironment(&reader, uses: uses)
        return (read.configuration, read.mentioned)
    }
}

extension ProvidersConfiguration {
    /// Stripe's configuration, when it is enabled.
    public var stripe: StripeConfiguration? { configuration(StripeConfiguration.self) }
}
