import BillingModel
import ServiceSettings
import Webhooks

/// What one provider's settings said: its credentials, base URL and the like.
/// Each provider's `Configuration/` folder declares its own type.
public protocol ProviderConfigurationValue: Sendable {
    /// Whose settings these are.
    var provider: Provider { get }
    /// The verifier of its webhooks; nil when no signing secret was read (a
    /// service that verifies no webhooks never reads one).
    var webhookVerifier: (any WebhookVerifier)? { get }
    /// The mode its credential shows; nil when its keys do not say.
    var credentialMode: CredentialMode? { get }
}

/// A provider's configuration part: its settings, and how they are read.
/// Each provider's `Configuration/` folder conforms its definition.
public protocol ConfigurationProviding: ProviderDefinition {
    /// The stem of the provider's settings' names (`LEMONSQUEEZY` in
    /// `LEMONSQUEEZY_API_KEY`), also used for the per-provider settings other
    /// modules declare (`PROVIDER_BUDGET_<STEM>_PER_MINUTE`).
    var settingsStem: String { get }
    /// The settings `uses` reads, in the order the settings reference lists them.
    func settings(for uses: ProviderUses) -> [Setting]
    /// The credentials that enable the provider for `uses`.
    func enablingSettings(for uses: ProviderUses) -> [Setting]
    /// The secrets `uses` reads.
    func secretSettings(for uses: ProviderUses) -> [Setting]
    /// Reads the provider's settings for `uses` (``ProvidersConfiguration/fromEnvironment(_:uses:)``
    /// says the rules); problems go to `reader`.
    /// - Returns: `mentioned` when any of its credentials is set; `configuration`
    ///   when every credential `uses` needs is set.
    func readConfiguration(_ reader: inout ConfigReader, uses: ProviderUses) -> (configuration: (any ProviderConfigurationValue)?, mentioned: Bool)
}

extension Provider {
    /// This provider's configuration part.
    public var configurationRules: any ConfigurationProviding { ProviderDirectory.part((any ConfigurationProviding).self, of: self) }
}
