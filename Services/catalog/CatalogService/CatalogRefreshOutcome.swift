import Models

/// What one refresh did, source by source.
public struct CatalogRefreshOutcome: Sendable, Equatable {
    /// One source that failed this time, with a short reason (already logged).
    public struct Failure: Sendable, Equatable {
        public let provider: Provider
        public let reason: String
    }

    /// Sources whose fresh items are now served, in configured order.
    public let refreshed: [Provider]
    /// Sources that failed; their last good items (if any) are still served.
    public let failures: [Failure]
    /// Whether a catalog is being served after this refresh.
    public let isLoaded: Bool
    /// Products served after this refresh.
    public let itemCount: Int

    /// True when every source refreshed.
    public var ok: Bool { failures.isEmpty }
}
