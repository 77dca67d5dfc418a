import Catalog
import Providers

extension ProviderClients {
    /// The enabled clients as catalog sources (``Providers/ProviderRegistry/catalogSources``,
    /// the one adapter), paced by whatever budget these clients keep to.
    var catalogSources: [any CatalogSource] {
        ProviderRegistry(providers: clients).catalogSources
    }
}
