import BillingModel
import ProviderConfiguration
import ServiceSettings
import Webhooks

extension Setting {
    static let testPayWebhookSecret = Setting("TESTPAY_WEBHOOK_SECRET", secret: true, "TestPay webhook signing secret (tests only)")
}

/// TestPay's settings: a webhook secret, no API.
struct TestPayConfiguration: ProviderConfigurationValue {
    var webhookSecret: Secret

    var provider: Provider { .testpay }

    var webhookVerifier: (any WebhookVerifier)? { TestPayWebhookVerifier(secret: webhookSecret) }

    var credentialMode: CredentialMode? { nil }
}

extension TestPayProvider: ConfigurationProviding {
    var settingsStem: String { "TESTPAY" }

    func settings(for uses: ProviderUses) -> [Setting] { uses.contains(.webhooks) ? [.testPayWebhookSecret] : [] }

    func enablingSettings(for uses: ProviderUses) -> [Setting] { settings(for: uses) }

    func secretSettings(for uses: ProviderUses) -> [Setting] { settings(for: uses) }

    func readConfiguration(_ reader: inout ConfigReader, uses: ProviderUses) -> (configuration: (any ProviderConfigurationValue)?, mentioned: Bool) {
        guard uses.contains(.webhooks), let secret = reader.trimmedSecret(.testPayWebhookSecret) else { return (nil, false) }
        return (TestPayConfiguration(webhookSecret: secret), true)
    }
}
