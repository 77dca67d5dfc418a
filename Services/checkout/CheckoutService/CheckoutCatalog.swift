import Models
import Providers
import Synchronization

/// The checkout service's own copy of each enabled provider's catalog, used to
/// check that a requested variant exists (and to know a Paystack plan's amount)
/// without calling the catalog service or the provider per request.
public final class CheckoutCatalog: Sendable {
    /// What looking up a variant found.
    public enum Lookup: Sendable, Equatable {
        case found(CatalogItem)
        /// The provider is enabled but its catalog was never loaded.
        case notLoaded
        /// Unknown variant, or a provider that is not enabled.
        case unknown
    }

    private struct State {
        var items: [Provider: [String: CatalogItem]] = [:]
    }

    /// The enabled providers' clients, in ``Provider/allCases`` order.
    public let providers: [any PaymentProvider]
    private let state = Mutex(State())

    public init(providers: [any PaymentProvider]) {
        self.providers = providers
    }

    /// Whether every enabled provider's catalog has been loaded at least once.
    public var isLoaded: Bool {
        let loaded = state.withLock { Set($0.items.keys) }
        return providers.allSatisfy { loaded.contains($0.provider) }
    }

    /// Items cached for `provider` (0 before the first load).
    public func itemCount(_ provider: Provider) -> Int {
        state.withLock { $0.items[provider]?.count ?? 0 }
    }

    /// The cached item for `variant`.
    public func lookup(_ variant: CatalogID) -> Lookup {
        guard providers.contains(where: { $0.provider == variant.provider }) else { return .unknown }
        return state.withLock { state in
            guard let items = state.items[variant.provider] else { return .notLoaded }
            return items[variant.rawID].map(Lookup.found) ?? .unknown
        }
    }

    /// Loads every provider's catalog; a failing provider keeps its last good copy.
    /// - Returns: the providers that failed, with their errors.
    @discardableResult
    public func refresh() async -> [Provider: ProviderError] {
        var failures: [Provider: ProviderError] = [:]
        for client in providers {
            do {
                let items = try await client.catalog()
                let byVariant = Dictionary(items.map { ($0.variantID, $0) }, uniquingKeysWith: { first, _ in first })
                state.withLock { $0.items[client.provider] = byVariant }
            } catch {
                failures[client.provider] = error
            }
        }
        return failures
    }
}
