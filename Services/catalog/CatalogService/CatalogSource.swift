import Models

/// Where the catalog comes from: one payment provider's product list.
///
/// This is the seam between the catalog service and the provider API clients
/// (the `Providers` module): each client is adapted to this protocol, and tests
/// use a fake. The service never calls a provider on a request path; it calls
/// ``fetchCatalog()`` from its background refresh only.
public protocol CatalogSource: Sendable {
    /// The provider whose items this source returns; every item's
    /// ``CatalogItem/provider`` should be this one.
    var provider: Provider { get }

    /// Fetches every purchasable item, in the order the catalog should show them.
    ///
    /// Called by at most one refresh at a time. Should honour task
    /// cancellation (service shutdown cancels an in-flight refresh).
    /// - Throws: any error when the provider cannot be reached or its answer
    ///   is unusable; the catalog then keeps this source's last good items.
    ///   The error's description is logged (first line, bounded), so it must
    ///   never contain an API key or other secret.
    func fetchCatalog() async throws -> [CatalogItem]
}
