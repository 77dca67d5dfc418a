import BillingModel

/// Where a catalog comes from: one payment provider's product list.
///
/// The one seam between the catalog caches of the services (the catalog's
/// product list, the checkout's variant checks) and the provider API clients:
/// `Providers.ProviderCatalogSource` adapts a `PaymentProvider` to it, and
/// tests use a fake. A ``CatalogCache`` calls ``fetchCatalog()`` from its
/// refresh only, never on a request path.
public protocol CatalogSource: Sendable {
    /// The provider whose items this source returns; every item's
    /// ``CatalogItem/provider`` should be this one (others are dropped).
    var provider: Provider { get }

    /// Fetches every purchasable item, in the order the catalog should show them.
    ///
    /// Called by at most one refresh at a time. Should honour task
    /// cancellation (service shutdown cancels an in-flight refresh).
    /// - Throws: any error when the provider cannot be reached or its answer
    ///   is unusable; the cache then keeps this source's last good items.
    ///   The error's description is logged (first line, bounded), so it must
    ///   never contain an API key or other secret.
    func fetchCatalog() async throws -> [CatalogItem]
}
