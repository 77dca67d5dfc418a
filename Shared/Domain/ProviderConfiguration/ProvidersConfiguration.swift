import ServiceSettings
import Foundation
import BillingModel
import Webhooks

/// Which providers are enabled and how to reach them, read from the environment.
///
/// A provider is enabled when the credentials of the service's uses
/// (``ProviderUses``) are present: Lemon Squeezy needs `LEMONSQUEEZY_API_KEY`
/// and `LEMONSQUEEZY_STORE_ID` to call the API and `LEMONSQUEEZY_WEBHOOK_SECRET`
/// to verify webhooks; Paystack needs `PAYSTACK_SECRET_KEY` for both. Both
/// providers may be enabled at once.
public struct ProvidersConfiguration: Sendable {
    public var lemonSqueezy: LemonSqueezyConfiguration?
    public var paystack: PaystackConfiguration?

    public init(lemonSqueezy: LemonSqueezyConfiguration? = nil, paystack: PaystackConfiguration? = nil) {
        self.lemonSqueezy = lemonSqueezy
        self.paystack = paystack
    }

    /// The enabled providers, in ``Provider/allCases`` order.
    public var enabledProviders: [Provider] {
        Provider.allCases.filter { provider in
            switch provider {
            case .lemonsqueezy: lemonSqueezy != nil
            case .paystack: paystack != nil
            }
        }
    }

    /// Reads the settings a service with `uses` needs, and nothing else,
    /// through the service's one `ConfigReader`: secrets may come from
    /// `*_FILE` variables, and every problem is reported to `reader` by
    /// variable name, so start-up lists them all at once.
    ///
    /// Empty values count as unset. A provider is enabled when the
    /// credentials of these uses are set: Lemon Squeezy needs
    /// `LEMONSQUEEZY_API_KEY` and `LEMONSQUEEZY_STORE_ID` (or the seed
    /// tutorial's `LEMON_SQUEEZY_STORE_ID`) for ``ProviderUses/api`` and
    /// `LEMONSQUEEZY_WEBHOOK_SECRET` for ``ProviderUses/webhooks``; Paystack
    /// needs `PAYSTACK_SECRET_KEY` for either. API settings:
    /// `LEMONSQUEEZY_API_BASE_URL`, `LEMONSQUEEZY_TEST_MODE`
    /// (``BooleanSetting``), `LEMONSQUEEZY_STORE_CURRENCY`,
    /// `PAYSTACK_API_BASE_URL`; webhook settings: `PAYSTACK_WEBHOOK_IP_ALLOWLIST`
    /// (comma-separated). Variables of other uses, secrets included, are not
    /// read at all, so a service never depends on a secret it does not use.
    /// - Returns: the configuration, or nil when a problem was reported (a
    ///   provider half configured, a malformed value, or no provider at all).
    public static func fromEnvironment(_ reader: inout ConfigReader, uses: ProviderUses = .all) -> ProvidersConfiguration? {
        let problemsBefore = reader.problems.count
        // Each provider reads its own settings (Shared/Domain/Providers/<Provider>/Configuration).
        let lemonSqueezy = LemonSqueezyConfiguration.fromEnvironment(&reader, uses: uses)
        let paystack = PaystackConfiguration.fromEnvironment(&reader, uses: uses)
        if !lemonSqueezy.mentioned, !paystack.mentioned {
            let options = [LemonSqueezyConfiguration.enablingSettings(for: uses), PaystackConfiguration.enablingSettings(for: uses)]
                .filter { !$0.isEmpty }
            reader.report(
                options.first?.first ?? .paystackSecretKey,
                "no payment provider configured: set \(options.map(Setting.listed).joined(separator: ", and/or "))")
        }
        let configuration = ProvidersConfiguration(lemonSqueezy: lemonSqueezy.configuration, paystack: paystack.configuration)
        return reader.problems.count == problemsBefore ? configuration : nil
    }
}

extension ProvidersConfiguration {
    /// A webhook verifier for each enabled provider that has its webhook
    /// secret, in ``Provider/allCases`` order: the one place they are built.
    public var webhookVerifiers: [any WebhookVerifier] {
        Provider.allCases.compactMap { provider -> (any WebhookVerifier)? in
            switch provider {
            case .lemonsqueezy: lemonSqueezy.flatMap(LemonSqueezyWebhookVerifier.init(configuration:))
            case .paystack: paystack.map(PaystackWebhookVerifier.init(configuration:))
            }
        }
    }
}
