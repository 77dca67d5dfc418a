extension ProjectionSchema {
    /// Migration 12: whether a checkout sold a subscription
    /// (`CheckoutCreatedRecord.isSubscription`; NULL for checkouts recorded
    /// before), and the checkout an order names (its custom data). The order that pays a subscription checkout's first period
    /// grants nothing on its own: projected before its subscription (Lemon
    /// Squeezy sends `order_created` and `subscription_created` under
    /// different keys), it would otherwise grant without an end until the
    /// subscription names it.
    static let checkoutKind = """
        ALTER TABLE checkouts ADD COLUMN is_subscription boolean;
        ALTER TABLE orders ADD COLUMN checkout_id text;
        """
}
