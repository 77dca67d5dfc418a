import BillingModel

/// One page of a Stripe list (`{"object": "list", "data": […], "has_more": …}`).
/// Stripe pages by cursor, not by number: the next page starts after this
/// page's last id (``nextCursor``).
public struct StripePage: Sendable {
    /// The page's objects, in Stripe's order (newest first), each with its bytes as the page holds them.
    public let items: [ProviderPage.Item]
    /// Whether Stripe says more follow.
    public let hasMore: Bool
    /// The `starting_after` of the next page; nil on the last one.
    public let nextCursor: String?

    public init(items: [ProviderPage.Item], hasMore: Bool, nextCursor: String?) {
        self.items = items
        self.hasMore = hasMore
        self.nextCursor = nextCursor
    }
}
