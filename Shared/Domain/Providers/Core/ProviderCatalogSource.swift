import Catalog
import BillingModel

/// A provider's API client seen as a catalog source: the one adapter from
/// ``PaymentProvider`` to `Catalog.CatalogSource`, used by the catalog and
/// checkout services alike.
public struct ProviderCatalogSource: CatalogSource {
    public let client: any PaymentProvider

    public init(_ client: any PaymentProvider) {
        self.client = client
    }

    public var provider: Provider { client.provider }

    /// ``PaymentProvider/catalog()``; a ``ProviderError`` names no secret.
    public func fetchCatalog() async throws -> [CatalogItem] {
        try await client.catalog()
    }
}

extension ProviderRegistry {
    /// One catalog source per enabled client, in ``Provider/allCases`` order.
    public var catalogSources: [any CatalogSource] {
        enabled.compactMap { self[$0] }.map(ProviderCatalogSource.init)
    }
}
