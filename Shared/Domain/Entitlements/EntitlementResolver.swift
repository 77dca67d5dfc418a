import Foundation
import BillingModel

/// Turns a user's purchases into the entitlement answer: which entitlements
/// each purchase grants (``EntitlementsConfiguration``, or without one, each
/// product is its own entitlement named by its catalog id), whether each
/// grants now (``AccessRules``), and, per entitlement, the purchase that
/// matters most (an active one, then the one that lasts longest).
public struct EntitlementResolver: Sendable, Hashable {
    /// nil: each product is its own entitlement, and one-time purchases grant for life.
    public var configuration: EntitlementsConfiguration?
    public var policy: AccessPolicy
    /// Names each answer's `product_id`: the catalog id of what was bought
    /// (the checkout gives it its live catalog; without one, the fallback id).
    public var productIDs = PurchasedProductIDs()

    public init(configuration: EntitlementsConfiguration? = nil, policy: AccessPolicy) {
        self.configuration = configuration
        self.policy = policy
    }

    /// Every entitlement the purchases and promotional grants give or gave:
    /// active ones first, then by identifier. A grant and a purchase of one
    /// entitlement compete like two purchases (``isBetter(_:than:)``): the
    /// answer shows whichever gives access now, and longer.
    public func entitlements(
        subscriptions: [SubscriptionState], orders: [ProjectedOrder], promotional: [ProjectedGrant] = [], at now: Date
    ) -> [EntitlementInfo] {
        var best: [String: EntitlementInfo] = [:]
        func offer(_ info: EntitlementInfo) {
            if let current = best[info.identifier], !Self.isBetter(info, than: current) { return }
            best[info.identifier] = info
        }
        // A plan change's new subscription, before it starts, neither gives nor gave anything.
        for s in subscriptions where s.hasStarted(at: now) {
            let access = AccessRules.access(s, policy: policy, at: now)
            for (identifier, _) in grants(s.provider, product: s.productID, variant: s.variantID) {
                offer(
                    moneyBack(
                        s.disputeOpenedAt, policy.revokedAt(refundedAt: s.refundedAt, partiallyRefundedAt: s.partiallyRefundedAt),
                        EntitlementInfo(
                            identifier: identifier, isActive: access.isActive, expiresAt: access.expiresAt, willRenew: access.willRenew,
                            periodType: access.periodType, productID: productIDs.id(s.provider, s.productID, s.variantID) ?? identifier,
                            provider: s.provider, source: .subscription, latestPurchaseAt: s.latestPurchaseAt ?? s.originalPurchaseAt,
                            originalPurchaseAt: s.originalPurchaseAt, unsubscribeDetectedAt: s.unsubscribeDetectedAt,
                            billingIssueDetectedAt: s.billingIssueDetectedAt, sandbox: s.testMode ?? policy.testDeployment)))
            }
        }
        // The first payment of a subscription is part of it, not a purchase of its own,
        // also before the subscription arrives (its order may be projected first).
        for order in orders where order.subscriptionID == nil && !order.opensSubscription {
            for (identifier, duration) in grants(order.provider, product: order.productID, variant: order.variantID) {
                let access = AccessRules.access(order, duration: duration, policy: policy, at: now)
                let revokedAt = policy.revokedAt(refundedAt: order.refundedAt, partiallyRefundedAt: order.partiallyRefundedAt)
                offer(
                    moneyBack(
                        order.disputeOpenedAt, revokedAt,
                        EntitlementInfo(
                            identifier: identifier, isActive: access.isActive, expiresAt: access.expiresAt, willRenew: false,
                            periodType: .normal, productID: productIDs.id(order.provider, order.productID, order.variantID) ?? identifier,
                            provider: order.provider, source: .purchase, latestPurchaseAt: order.paidAt, originalPurchaseAt: order.paidAt,
                            unsubscribeDetectedAt: nil, billingIssueDetectedAt: nil, sandbox: order.testMode ?? policy.testDeployment)))
            }
        }
        for grant in promotional {
            offer(grant.info(at: now, testDeployment: policy.testDeployment))
        }
        return best.values.sorted { ($0.isActive ? 0 : 1, $0.identifier) < ($1.isActive ? 0 : 1, $1.identifier) }
    }

    /// The entitlement with the money-back facts an app may show (a dispute open, access ended by a refund).
    func moneyBack(_ disputeOpenedAt: Date?, _ refundedAt: Date?, _ info: EntitlementInfo) -> EntitlementInfo {
        var info = info
        info.disputeDetectedAt = disputeOpenedAt
        info.refundedAt = refundedAt
        return info
    }

    /// (identifier, one-time duration) pairs a purchase grants.
    func grants(_ provider: Provider, product: String?, variant: String?) -> [(String, TimeInterval?)] {
        if let configuration {
            return configuration.entitlements(for: provider, product: product, variant: variant).map { ($0.identifier, $0.oneTimeDuration) }
        }
        return Self.catalogID(provider, product, variant).map { [($0, nil)] } ?? []
    }

    /// The catalog id of the product (not of the variant bought: see
    /// ``productIDs``), naming its entitlement when there is no configuration:
    /// the product's, else the variant's.
    static func catalogID(_ provider: Provider, _ product: String?, _ variant: String?) -> String? {
        for raw in [product, variant].compactMap({ $0 }) {
            if let id = CatalogID(provider: provider, rawID: raw) { return id.description }
        }
        return nil
    }

    /// Active beats inactive; then lifetime beats any end, and a later end beats an earlier one.
    static func isBetter(_ a: EntitlementInfo, than b: EntitlementInfo) -> Bool {
        if a.isActive != b.isActive { return a.isActive }
        switch (a.expiresAt, b.expiresAt) {
        case (nil, nil): return (a.latestPurchaseAt ?? .distantPast) > (b.latestPurchaseAt ?? .distantPast)
        case (nil, _): return a.isActive
        case (_, nil): return !b.isActive
        case (let x?, let y?): return x > y
        }
    }
}
