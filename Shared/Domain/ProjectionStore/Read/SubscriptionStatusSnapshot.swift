import Foundation
import BillingModel
import Entitlements

/// Everything the projection knows about one app user's purchases at one
/// instant, and the answers derived from it. The checkout service renders
/// ``response`` and ``entitlements``; the operator CLI can print the parts.
public struct SubscriptionStatusSnapshot: Sendable, Hashable {
    /// The instant activity was judged at.
    public var now: Date
    /// The user's subscriptions, most recently updated first.
    public var subscriptions: [SubscriptionState]
    /// The user's orders, most recently paid first (a subscription's first
    /// payment included; it grants nothing of its own).
    public var orders: [ProjectedOrder]
    /// The newest checkout opened in the last ``SubscriptionStatusReader/pendingWindow``
    /// with no payment arrived since, if any.
    public var pendingCheckout: ProjectedCheckout?
    /// How purchases become entitlements.
    public var resolver: EntitlementResolver
    /// The user's promotional grants, running ones first, then the newest (revoked and ended ones included).
    public var grants: [ProjectedGrant]

    public init(
        now: Date, subscriptions: [SubscriptionState], orders: [ProjectedOrder], pendingCheckout: ProjectedCheckout?,
        resolver: EntitlementResolver, grants: [ProjectedGrant] = []
    ) {
        self.now = now
        self.subscriptions = subscriptions
        self.orders = orders
        self.pendingCheckout = pendingCheckout
        self.resolver = resolver
        self.grants = grants
    }

    /// What `subscription` grants now.
    public func access(_ subscription: SubscriptionState) -> Access {
        AccessRules.access(subscription, policy: resolver.policy, at: now)
    }

    /// "The" subscription when there are several: the first active one, else
    /// the most recently updated one (``subscriptions`` is already in that order).
    public var primarySubscription: SubscriptionState? {
        subscriptions.first { access($0).isActive } ?? subscriptions.first
    }

    /// The `GET /api/entitlements` list.
    public var entitlements: [EntitlementInfo] {
        resolver.entitlements(subscriptions: subscriptions, orders: orders, promotional: grants, at: now)
    }

    /// The `GET /api/subscription/status` answer: the seed's fields from the
    /// primary subscription, plus every entitlement.
    public var response: SubscriptionStatusResponse {
        var response = SubscriptionStatusResponse.none
        response.entitlements = entitlements
        response.pendingCheckout = pendingCheckout.map {
            SubscriptionStatusResponse.PendingCheckout(checkoutId: $0.checkoutID, url: $0.url, createdAt: $0.createdAt, expiresAt: $0.expiresAt)
        }
        guard let subscription = primarySubscription else { return response }
        let access = access(subscription)
        response.active = access.isActive
        response.planName = subscription.planName
        response.subscriptionCode = subscription.subscriptionID
        response.emailToken = subscription.emailToken
        response.status = subscription.status
        response.provider = subscription.provider
        response.renewsAt = subscription.renewsAt
        response.endsAt = subscription.endsAt
        response.cancelAtPeriodEnd = subscription.cancelAtPeriodEnd
        response.pendingPlanChange = subscription.pendingVariantID.flatMap { CatalogID(provider: subscription.provider, rawID: $0) }.map {
            SubscriptionStatusResponse.PendingPlanChange(variantId: $0.description, effectiveAt: subscription.pendingChangeAt)
        }
        response.customerPortalURL = Self.isFresh(subscription.portalURLsSeenAt, at: now) ? subscription.customerPortalURL : nil
        // A charge is coming only while the subscription renews: not after a
        // cancellation (Lemon Squeezy `cancelled`, Paystack `non-renewing`).
        response.nextBillingDate = access.willRenew ? subscription.renewsAt : nil
        return response
    }

    /// How long a signed portal link is handed out after the object carrying
    /// it (Lemon Squeezy signs them for 24 hours; an hour is kept in hand).
    public static let portalLinkLifetime: TimeInterval = 23 * 3600

    /// A link issued at `seenAt` is still valid for a while at `now`. Older
    /// (or of unknown age): `GET /api/subscription/portal` fetches a fresh one.
    static func isFresh(_ seenAt: Date?, at now: Date) -> Bool {
        guard let seenAt else { return false }
        return now.timeIntervalSince(seenAt) < portalLinkLifetime
    }
}
