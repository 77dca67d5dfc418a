import Foundation
import Models

/// Everything the projection knows about one app user's purchases at one
/// instant, and the status answer derived from it. The checkout service
/// renders ``response``; the operator CLI can print the parts.
public struct SubscriptionStatusSnapshot: Sendable, Hashable {
    /// The instant activity was judged at.
    public var now: Date
    /// The user's subscriptions, most recently updated first.
    public var subscriptions: [SubscriptionState]
    /// The user's one-time orders, most recently paid first.
    public var orders: [ProjectedOrder]
    /// The newest checkout opened in the last ``SubscriptionStatusReader/pendingWindow``
    /// with no payment arrived since, if any.
    public var pendingCheckout: ProjectedCheckout?

    public init(now: Date, subscriptions: [SubscriptionState], orders: [ProjectedOrder], pendingCheckout: ProjectedCheckout?) {
        self.now = now
        self.subscriptions = subscriptions
        self.orders = orders
        self.pendingCheckout = pendingCheckout
    }

    /// "The" subscription when there are several: the first active one, else
    /// the most recently updated one (``subscriptions`` is already in that order).
    public var primarySubscription: SubscriptionState? {
        subscriptions.first { $0.isActive(at: now) } ?? subscriptions.first
    }

    /// What the user holds now, as catalog ids (`ls_2`, `ps_PLN_x`): the product
    /// (or, without one, the variant) of every active subscription and of every
    /// paid, unrefunded order. Sorted, without duplicates.
    public var entitlements: [String] {
        var names = Set<String>()
        for subscription in subscriptions where subscription.isActive(at: now) {
            if let name = Self.entitlement(subscription.provider, product: subscription.productID, variant: subscription.variantID) {
                names.insert(name)
            }
        }
        for order in orders where order.grantsAccess {
            if let name = Self.entitlement(order.provider, product: order.productID, variant: order.variantID) {
                names.insert(name)
            }
        }
        return names.sorted()
    }

    static func entitlement(_ provider: Provider, product: String?, variant: String?) -> String? {
        for raw in [product, variant].compactMap({ $0 }) {
            if let id = CatalogID(provider: provider, rawID: raw) { return id.description }
        }
        return nil
    }

    /// The `GET /api/subscription/status` answer.
    public var response: SubscriptionStatusResponse {
        var response = SubscriptionStatusResponse.none
        response.entitlements = entitlements
        response.pendingCheckout = pendingCheckout.map {
            SubscriptionStatusResponse.PendingCheckout(checkoutId: $0.checkoutID, url: $0.url, createdAt: $0.createdAt, expiresAt: $0.expiresAt)
        }
        guard let subscription = primarySubscription else { return response }
        let active = subscription.isActive(at: now)
        response.active = active
        response.planName = subscription.planName
        response.subscriptionCode = subscription.subscriptionID
        response.emailToken = subscription.emailToken
        response.status = subscription.status
        response.provider = subscription.provider
        response.renewsAt = subscription.renewsAt
        response.endsAt = subscription.endsAt
        response.cancelAtPeriodEnd = subscription.cancelAtPeriodEnd
        response.customerPortalURL = subscription.customerPortalURL
        // A charge is coming only while the subscription renews: not after a
        // cancellation (Lemon Squeezy `cancelled`, Paystack `non-renewing`).
        let renews = active && !subscription.cancelAtPeriodEnd && !Self.nonRenewingStatuses.contains(subscription.status)
        response.nextBillingDate = renews ? subscription.renewsAt : nil
        return response
    }

    /// Provider statuses after which no further charge happens.
    static let nonRenewingStatuses: Set<String> = ["cancelled", "non-renewing", "expired", "complete", "completed", "unpaid"]
}
