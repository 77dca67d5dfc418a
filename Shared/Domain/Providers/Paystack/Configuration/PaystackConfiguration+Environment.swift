import ServiceSettings
import Foundation
import BillingModel
import Webhooks

extension PaystackConfiguration {
    /// The credential that enables Paystack for any use: `PAYSTACK_SECRET_KEY`
    /// (Paystack signs webhooks with the API's secret key).
    static func enablingSettings(for uses: ProviderUses) -> [Setting] {
        uses.isEmpty ? [] : [.paystackSecretKey]
    }

    /// The secret any use reads: the secret key (it signs webhooks too).
    static func secretSettings(for uses: ProviderUses) -> [Setting] { enablingSettings(for: uses) }

    /// Reads Paystack's settings for `uses` (``ProvidersConfiguration/fromEnvironment(_:uses:)``
    /// says the rules); problems go to `reader`.
    /// - Returns: `mentioned` when its secret key is set; `configuration` then too.
    static func fromEnvironment(_ reader: inout ConfigReader, uses: ProviderUses) -> (configuration: Self?, mentioned: Bool) {
        let key = uses.isEmpty ? nil : reader.trimmedSecret(.paystackSecretKey)
        let allow = uses.contains(.webhooks) ? reader.trimmedString(.paystackWebhookIPAllowlist) : nil
        guard let key else {
            if allow != nil { reader.report(.paystackWebhookIPAllowlist, "is set but PAYSTACK_SECRET_KEY is not") }
            return (nil, false)
        }
        if key.reveal().hasPrefix("pk_") {
            reader.report(.paystackSecretKey, "holds a public key (pk_…); the API and webhook signatures need the secret key (sk_…)")
        }
        let base = uses.contains(.api) ? reader.baseURL(.paystackAPIBaseURL, default: defaultAPIBaseURL) : defaultAPIBaseURL
        var allowList: IPAllowList?
        if let allow {
            do {
                allowList = try IPAllowList(commaSeparated: allow)
            } catch {
                reader.report(.paystackWebhookIPAllowlist, error.description)
            }
        }
        return (Self(secretKey: key, apiBaseURL: base, webhookIPAllowList: allowList), true)
    }
}

extension PaystackWebhookVerifier {
    public init(configuration: PaystackConfiguration) {
        self.init(secretKey: configuration.secretKey, allowList: configuration.webhookIPAllowList)
    }
}

extension PaystackConfiguration: ProviderConfigurationValue {
    public var provider: Provider { .paystack }

    public var webhookVerifier: (any WebhookVerifier)? { PaystackWebhookVerifier(configuration: self) }

    /// The secret key's documented prefix says its mode (`sk_test_`, `sk_live_`).
    public var credentialMode: CredentialMode? {
        let key = secretKey.reveal().trimmingCharacters(in: .whitespacesAndNewlines)
        let live: Bool? = key.hasPrefix("sk_live_") ? true : key.hasPrefix("sk_test_") ? false : nil
        return CredentialMode(provider: .paystack, setting: .paystackSecretKey, isLive: live, testMark: "sk_test_", liveMark: "sk_live_")
    }
}

extension PaystackProvider: ConfigurationProviding {
    public var settingsStem: String { "PAYSTACK" }

    public func settings(for uses: ProviderUses) -> [Setting] {
        (uses.contains(.api) ? [.paystackSecretKey, .paystackAPIBaseURL] : [])
            + (uses.contains(.webhooks) ? [.paystackSecretKey, .paystackWebhookIPAllowlist] : [])
    }

    public func enablingSettings(for uses: ProviderUses) -> [Setting] { PaystackConfiguration.enablingSettings(for: uses) }

    public func secretSettings(for uses: ProviderUses) -> [Setting] { PaystackConfiguration.secretSettings(for: uses) }

    public func readConfiguration(
        _ reader: inout ConfigReader, uses: ProviderUses
    ) -> (configuration: (any ProviderConfigurationValue)?, mentioned: Bool) {
        let read = PaystackConfiguration.fromEnvironment(&reader, uses: uses)
        return (read.configuration, read.mentioned)
    }
}

extension ProvidersConfiguration {
    /// Paystack's configuration, when it is enabled.
    public var paystack: PaystackConfiguration? { configuration(PaystackConfiguration.self) }
}
