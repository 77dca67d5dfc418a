import HTTPClient
import BillingModel
import ProviderConfiguration
import Webhooks

/// The enabled payment providers (API clients and webhook verifiers), by ``Provider``.
public struct ProviderRegistry: Sendable {
    private let clients: [Provider: any PaymentProvider]
    private let verifiers: [Provider: any WebhookVerifier]

    /// A registry of the given clients and verifiers (tests, custom wiring).
    public init(providers: [any PaymentProvider], verifiers: [any WebhookVerifier] = []) {
        clients = Dictionary(providers.map { ($0.provider, $0) }, uniquingKeysWith: { _, last in last })
        self.verifiers = Dictionary(verifiers.map { ($0.provider, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Clients and verifiers for every provider enabled in `configuration`:
    /// a client where it has API credentials, a verifier where it has a
    /// webhook secret (``ProviderUses``); each client paced by `budget(provider)`
    /// when it gives one.
    public init(
        configuration: ProvidersConfiguration, httpClient: HTTPClient,
        budget: (Provider) -> (any ProviderRequestBudget)? = { _ in nil }
    ) {
        let providers = configuration.configurations.compactMap { configured -> (any PaymentProvider)? in
            let options = ProviderClientOptions(httpClient: httpClient, budget: budget(configured.provider))
            return configured.provider.apiRules.makeClient(configured, options: options)
        }
        self.init(providers: providers, verifiers: configuration.webhookVerifiers)
    }

    /// The enabled providers, in ``Provider/allCases`` order.
    public var enabled: [Provider] { Provider.allCases.filter { clients[$0] != nil } }

    /// The client for `provider`, or nil when it is not enabled.
    public subscript(provider: Provider) -> (any PaymentProvider)? { clients[provider] }

    /// The client for `provider`.
    /// - Throws: ``ProviderError`` (`.validation`, no status) when it is not enabled.
    public func client(for provider: Provider, operation: String = "lookup") throws(ProviderError) -> any PaymentProvider {
        guard let client = clients[provider] else {
            throw ProviderError(provider: provider, operation: operation, kind: .validation, message: "provider is not enabled")
        }
        return client
    }

    /// The webhook verifier for `provider`, or nil when it is not enabled.
    public func verifier(for provider: Provider) -> (any WebhookVerifier)? { verifiers[provider] }
}
