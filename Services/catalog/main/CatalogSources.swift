import ServiceSettings
import Catalog
import HTTPClient
import ProviderConfiguration
import Providers

/// The catalog sources this process serves, one per enabled provider, in
/// `Provider.allCases` order (Lemon Squeezy, then Paystack). Problems with
/// the providers' settings are added to `reader`.
func makeCatalogSources(_ reader: inout ConfigReader, httpClient: HTTPClient) -> [any CatalogSource] {
    guard let configuration = ProvidersConfiguration.fromEnvironment(&reader, uses: .api) else { return [] }
    return ProviderRegistry(configuration: configuration, httpClient: httpClient).catalogSources
}
