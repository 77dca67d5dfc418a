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
/// providers may be enabled at once. Each provider reads its own settings
/// (its ``ConfigurationProviding`` part, in its folder).
public struct ProvidersConfiguration: Sendable {
    /// The enabled providers' configurations, in ``Provider/allCases`` order.
    public private(set) var configurations: [any ProviderConfigurationValue]

    /// The configurations of the enabled providers; a provider given twice keeps the last.
    public init(_ configurations: [any ProviderConfigurationValue] = []) {
        var byProvider: [Provider: any ProviderConfigurationValue] = [:]
        for configuration in configurations { byProvider[configuration.provider] = configuration }
        self.configurations = Provider.allCases.compactMap { byProvider[$0] }
    }

    /// `provider`'s configuration, when it is enabled.
    public subscript(provider: Provider) -> (any ProviderConfigurationValue)? {
        configurations.first { $0.provider == provider }
    }

    /// The configuration of type `Value` (one provider's own), when that provider is enabled.
    public func configuration<Value: ProviderConfigurationValue>(_ type: Value.Type) -> Value? {
        configurations.lazy.compactMap { $0 as? Value }.first
    }

    /// The enabled providers, in ``Provider/allCases`` order.
    public var enabledProviders: [Provider] { configurations.map(\.provider) }

    /// Reads every registered provider's settings for `uses`; problems are
    /// reported to `reader`. At least one provider must be configured; a
    /// provider whose credentials are only partly set is a problem.
    /// - Returns: nil when anything was reported.
    public static func fromEnvironment(_ reader: inout ConfigReader, uses: ProviderUses = .all) -> ProvidersConfiguration? {
        let problemsBefore = reader.problems.count
        var configurations: [any ProviderConfigurationValue] = []
        var mentioned = false
        for provider in Provider.allCases {
            let read = provider.configurationRules.readConfiguration(&reader, uses: uses)
            mentioned = mentioned || read.mentioned
            if let configuration = read.configuration { configurations.append(configuration) }
        }
        if !mentioned {
            let options = Provider.allCases.map { $0.configurationRules.enablingSettings(for: uses) }.filter { !$0.isEmpty }
            if let first = options.first?.first {
                reader.report(first, "no payment provider configured: set \(options.map(Setting.listed).joined(separator: ", and/or "))")
            }
        }
        let configuration = ProvidersConfiguration(configurations)
        return reader.problems.count == problemsBefore ? configuration : nil
    }
}

extension ProvidersConfiguration {
    /// The settings that enable a provider for `uses`, every registered
    /// provider's, in ``Provider/allCases`` order.
    public static func enablingSettings(for uses: ProviderUses) -> [Setting] {
        Provider.allCases.flatMap { $0.configurationRules.enablingSettings(for: uses) }
    }

    /// The webhook verifier of every enabled provider that was given its
    /// secret, in ``Provider/allCases`` order: the one place they are built.
    public var webhookVerifiers: [any WebhookVerifier] {
        configurations.compactMap(\.webhookVerifier)
    }
}
