import BillingModel

/// What looking up a variant in a ``CatalogCache`` found.
public enum CatalogLookup: Sendable, Equatable {
    case found(CatalogItem)
    /// The variant's provider has a source, but it never loaded.
    case notLoaded
    /// Unknown variant, or a provider without a source.
    case unknown
}

/// What a ``CatalogCache`` holds at one moment: each source's last good
/// items, in source order.
///
/// A value: a refresh builds the next one and replaces the whole, so a
/// reader never sees half of one refresh and half of another.
public struct CatalogContents: Sendable {
    /// One source's last good fetch.
    public struct Entry: Sendable {
        /// The source's provider; every item is of this provider.
        public let provider: Provider
        /// The items in the source's order.
        public let items: [CatalogItem]
        /// ``CatalogClock`` time at which they were fetched.
        public let fetchedAt: Double
        /// ``items`` by ``CatalogItem/variantID``; the first of a repeated id wins.
        let byVariant: [String: CatalogItem]
        /// The ids the catalog lists ``items`` under.
        let ids: CatalogEntryIDs

        init(provider: Provider, items: [CatalogItem], fetchedAt: Double) {
            self.provider = provider
            self.items = items
            self.fetchedAt = fetchedAt
            byVariant = Dictionary(items.map { ($0.variantID, $0) }, uniquingKeysWith: { first, _ in first })
            ids = CatalogEntryIDs(items)
        }
    }

    /// The sources' providers, in source order.
    public let providers: [Provider]
    /// By index into ``providers``; nil until that source's first success.
    public internal(set) var entries: [Entry?]

    init(providers: [Provider]) {
        self.providers = providers
        entries = Array(repeating: nil, count: providers.count)
    }

    /// The sources that have loaded, in source order.
    public var loaded: [Entry] { entries.compactMap { $0 } }

    /// Whether at least one source has loaded (there is something to serve).
    public var isLoaded: Bool { entries.contains { $0 != nil } }

    /// Whether every source has loaded at least once (true with no sources).
    public var allSourcesLoaded: Bool { entries.allSatisfy { $0 != nil } }

    /// Items kept, all sources together.
    public var itemCount: Int { entries.reduce(0) { $0 + ($1?.items.count ?? 0) } }

    /// The last good fetch of `provider`'s source (the first one, should two
    /// claim it), or nil when it never loaded or there is none.
    public func entry(for provider: Provider) -> Entry? {
        providers.firstIndex(of: provider).flatMap { entries[$0] }
    }

    /// Distinct variants kept for `provider` (0 before its first load).
    public func variantCount(_ provider: Provider) -> Int {
        entry(for: provider)?.byVariant.count ?? 0
    }

    /// The id the catalog lists (provider, product, variant) under
    /// (``CatalogEntryIDs``), or nil when `provider` never loaded or does not
    /// have that variant of that product.
    public func catalogEntryID(provider: Provider, productID: String, variantID: String) -> CatalogID? {
        entry(for: provider)?.ids.id(provider: provider, productID: productID, variantID: variantID)
    }

    /// The kept item for `variant`.
    public func lookup(_ variant: CatalogID) -> CatalogLookup {
        guard let index = providers.firstIndex(of: variant.provider) else { return .unknown }
        guard let entry = entries[index] else { return .notLoaded }
        return entry.byVariant[variant.rawID].map(CatalogLookup.found) ?? .unknown
    }
}
