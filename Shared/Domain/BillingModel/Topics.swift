/// Kafka topic names (see docs/architecture.md, "Kafka topics").
public enum Topics {
    /// Webhook envelopes (``WebhookEnvelope``), key `<provider>:<entity id>`.
    public static let webhooks = "storefront.webhooks.v1"
    /// Checkout-created records (``CheckoutCreatedRecord``), key `<provider>:<app user id>`.
    public static let checkouts = "storefront.checkouts.v1"
    /// Subscription commands (``SubscriptionCommand``), key `<provider>:<subscription id>`.
    public static let commands = "storefront.commands.v1"
    /// Provider snapshots (``ProviderSnapshot``) from the reconciler, keyed as the webhooks.
    public static let snapshots = "storefront.snapshots.v1"
    /// Dead letters (``DeadLetterRecord``), key as the source record's.
    public static let deadLetter = "storefront.deadletter.v1"
    /// Entitlement changes (``EntitlementChange``) from the projector's outbox, key `<app user id>`.
    public static let entitlements = "storefront.entitlements.v1"
    /// Purchase events (``PurchaseEvent``) from the checkout, e.g. a redemption link issued;
    /// key `<provider>:<type>:<id>` (``TopicKey/purchase(_:type:id:)``).
    public static let purchaseEvents = "storefront.purchase-events.v1"

    /// Every topic, e.g. for start-up checks and test setup.
    public static let all = [webhooks, checkouts, commands, snapshots, deadLetter, entitlements, purchaseEvents]
}

/// Record keys: `<provider>:<entity id>`, so all records about one entity go
/// to one partition and keep their order.
public enum TopicKey {
    /// Longest entity id kept in a key; longer ids are cut (keys only steer partitioning).
    public static let maximumEntityLength = 200

    /// `lemonsqueezy:sub_421953`, `paystack:CUS_xnxdt6s1zg1f4nx`.
    public static func make(_ provider: Provider, _ entityID: String) -> String {
        "\(provider.rawValue):\(entityID.prefix(maximumEntityLength))"
    }

    /// Key of a ``CheckoutCreatedRecord``: `<provider>:<app user id>`.
    public static func checkout(_ provider: Provider, appUserID: String) -> String { make(provider, appUserID) }

    /// Key of a ``SubscriptionCommand``: `<provider>:<subscription id>`.
    public static func command(_ provider: Provider, subscriptionID: String) -> String { make(provider, subscriptionID) }

    /// Key of a ``PurchaseEvent``: `<provider>:<type>:<id>` (`lemonsqueezy:subscription:421953`),
    /// so one purchase's events keep their order.
    public static func purchase(_ provider: Provider, type: PurchaseType, id: String) -> String {
        make(provider, "\(type.rawValue):\(id)")
    }

    /// Splits a key back into provider and entity id; nil if it has no known provider prefix.
    public static func parse(_ key: String) -> (provider: Provider, entityID: String)? {
        guard let colon = key.firstIndex(of: ":"), let provider = Provider(rawValue: String(key[..<colon])) else { return nil }
        return (provider, String(key[key.index(after: colon)...]))
    }
}
