import Basics
import CatalogService
import HTTPClient
import Models
import ProviderConfiguration
import Providers
import ServiceRuntime

/// The catalog sources this process serves, one per enabled provider, in
/// ``Provider/allCases`` order (Lemon Squeezy, then Paystack). Problems with
/// the providers' settings are added to `reader`.
func makeCatalogSources(_ reader: inout ConfigReader, httpClient: HTTPClient) -> [any CatalogSource] {
    guard let configuration = ProvidersConfiguration.fromEnvironment(&reader, uses: .api) else { return [] }
    let registry = ProviderRegistry(configuration: configuration, httpClient: httpClient)
    return registry.enabled.compactMap { registry[$0] }.map(ProviderCatalogSource.init)
}

/// A provider's API client seen as a catalog source.
struct ProviderCatalogSource: CatalogSource {
    let client: any PaymentProvider

    var provider: Provider { client.provider }

    func fetchCatalog() async throws -> [CatalogItem] {
        try await client.catalog()
    }
}
