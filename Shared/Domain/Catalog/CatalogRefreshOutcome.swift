import BillingModel

/// What one refresh did, source by source.
public struct CatalogRefreshOutcome: Sendable, Equatable {
    /// One source that failed this time, with a short reason (already logged).
    public struct Failure: Sendable, Equatable {
        public let provider: Provider
        public let reason: String

        public init(provider: Provider, reason: String) {
            self.provider = provider
            self.reason = reason
        }
    }

    /// Sources whose fresh items are now served, in configured order.
    public let refreshed: [Provider]
    /// Sources that failed; their last good items (if any) are still kept.
    public let failures: [Failure]
    /// Whether at least one source's items are kept after this refresh.
    public let isLoaded: Bool
    /// Items kept after this refresh, all sources together.
    public let itemCount: Int

    public init(refreshed: [Provider], failures: [Failure], isLoaded: Bool, itemCount: Int) {
        self.refreshed = refreshed
        self.failures = failures
        self.isLoaded = isLoaded
        self.itemCount = itemCount
    }

    /// True when every source refreshed.
    public var ok: Bool { failures.isEmpty }
}
