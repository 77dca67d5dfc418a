import Foundation
import BillingModel
import Postgres
import Entitlements

/// Read-side queries over the projection tables (see ``ProjectionSchema``):
/// a user's subscription status, and the one subscription a user may act on.
///
/// Every query ties rows to the user the way ``ProjectionUser`` describes, so a
/// caller can never see another app user's rows. Only reads; the projector is
/// the only writer.
public struct SubscriptionStatusReader: Sendable {
    /// Most rows of each kind read for one user (bounds work per request).
    public static let rowLimit = 100
    /// How long after opening a checkout it still counts as pending.
    public static let pendingWindow: TimeInterval = 3600
    /// How long an unowned purchase waits before a verified email may claim it.
    public static let claimDelay: TimeInterval = 120

    public let pool: PostgresPool
    /// How purchases become entitlements in this deployment.
    public let resolver: EntitlementResolver

    public init(pool: PostgresPool, resolver: EntitlementResolver) {
        self.pool = pool
        self.resolver = resolver
    }

    /// The user's subscriptions, orders and pending checkout at `now`.
    /// - Throws: ``PostgresError`` when the database cannot be read.
    public func snapshot(for user: ProjectionUser, at now: Date = Date()) async throws -> SubscriptionStatusSnapshot {
        try await pool.withConnection { connection in
            let (subscriptions, orders) = try await Self.purchases(for: user, at: now, on: connection)
            let latest = try await connection.query(Self.latestCheckoutQuery(user, since: now.addingTimeInterval(-Self.pendingWindow)))
                .compactMap(Self.checkout).first
            let pending = latest.flatMap { checkout in
                Self.isPending(checkout, now: now, subscriptions: subscriptions, orders: orders) ? checkout : nil
            }
            let grants = try await Self.grants(of: [user.appUserID], at: now, on: connection)[user.appUserID] ?? []
            return SubscriptionStatusSnapshot(
                now: now, subscriptions: subscriptions, orders: orders, pendingCheckout: pending,
                resolver: resolver, grants: grants)
        }
    }

    /// The subscription with this provider id (Lemon Squeezy id, Paystack `SUB_…`)
    /// if it belongs to `user`; nil when it does not exist or is someone else's.
    /// When both providers have one with that id and the user's, the most recently updated wins.
    public func ownedSubscription(code: String, for user: ProjectionUser, at now: Date = Date()) async throws -> SubscriptionState? {
        try await pool.query(Self.subscriptionsQuery(user, code: code, now: now)).compactMap(Self.subscription).first
    }

    /// A checkout is pending until it expires, is marked completed, or a
    /// payment (an order paid, or a subscription event) for the user arrives after it.
    static func isPending(_ checkout: ProjectedCheckout, now: Date, subscriptions: [SubscriptionState], orders: [ProjectedOrder]) -> Bool {
        guard checkout.completedAt == nil else { return false }
        if let expiresAt = checkout.expiresAt, expiresAt <= now { return false }
        if orders.contains(where: { ($0.paidAt ?? .distantPast) >= checkout.createdAt }) { return false }
        if subscriptions.contains(where: { ($0.sourceUpdatedAt ?? .distantPast) >= checkout.createdAt }) { return false }
        return true
    }

    // MARK: - SQL

    /// `owned` CTE: the keys of `table` rows that belong to `user`, by the
    /// rules ``ProjectionUser`` documents. Two indexed branches joined by
    /// UNION rather than one OR, so each can use its index.
    static func ownedCTE(table: String, idColumn: String) -> String {
        """
        owned AS (
            SELECT t.provider, t.\(idColumn) FROM \(table) t, me WHERE t.app_user_id = me.id
            UNION
            SELECT t.provider, t.\(idColumn) FROM \(table) t, me
                WHERE t.app_user_id IS NULL AND me.email IS NOT NULL AND lower(t.customer_email) = me.email
                  AND t.first_seen_at <= me.claimable_before
        )
        """
    }

    static func subscriptionsQuery(_ user: ProjectionUser, code: String?, now: Date) -> PostgresQuery {
        """
        WITH me AS (SELECT \(user.appUserID)::text AS id, lower(\(user.verifiedEmail)::text) AS email,
                           \(now.addingTimeInterval(-claimDelay))::timestamptz AS claimable_before),
        \(unescaped: ownedCTE(table: "subscriptions", idColumn: "subscription_id"))
        SELECT \(unescaped: subscriptionColumns)
        FROM subscriptions s JOIN owned o ON o.provider = s.provider AND o.subscription_id = s.subscription_id
        WHERE \(code)::text IS NULL OR s.subscription_id = \(code)::text
        ORDER BY COALESCE(s.source_updated_at, s.projected_at) DESC, s.projected_at DESC, s.provider, s.subscription_id
        LIMIT \(rowLimit)
        """
    }

    static func ordersQuery(_ user: ProjectionUser, now: Date) -> PostgresQuery {
        """
        WITH me AS (SELECT \(user.appUserID)::text AS id, lower(\(user.verifiedEmail)::text) AS email,
                           \(now.addingTimeInterval(-claimDelay))::timestamptz AS claimable_before),
        \(unescaped: ownedCTE(table: "orders", idColumn: "order_id"))
        SELECT \(unescaped: orderColumns)
        FROM orders r JOIN owned o ON o.provider = r.provider AND o.order_id = r.order_id
        ORDER BY r.paid_at DESC NULLS LAST, r.provider, r.order_id
        LIMIT \(rowLimit)
        """
    }

    static func latestCheckoutQuery(_ user: ProjectionUser, since: Date) -> PostgresQuery {
        """
        SELECT checkout_id, provider, app_user_id, variant_id, product_id, url, created_at, expires_at, completed_at
        FROM checkouts
        WHERE app_user_id = \(user.appUserID) AND created_at > \(since)
        ORDER BY created_at DESC
        LIMIT 1
        """
    }

    // MARK: - Row decoding

    /// Every column ``order(_:)`` reads, of `orders r`.
    static let orderColumns = """
        r.provider, r.order_id, r.app_user_id, r.customer_email, r.product_id, r.variant_id, r.product_name,
        r.status, r.paid_at, r.refunded_at, r.subscription_id, r.test_mode, r.partially_refunded_at,
        CASE WHEN r.dispute_resolved_at IS NULL THEN r.dispute_opened_at END AS dispute_opened_at,
        EXISTS (SELECT 1 FROM checkouts AS c WHERE c.checkout_id = r.checkout_id AND c.is_subscription) AS opens_subscription
        """

    /// Every column ``subscription(_:)`` reads, of `subscriptions s`.
    public static let subscriptionColumns = """
        s.provider, s.subscription_id, s.app_user_id, s.customer_id, s.customer_email, s.product_id,
        s.variant_id, s.plan_name, s.status, s.renews_at, s.ends_at, s.trial_ends_at, s.cancel_at_period_end,
        s.email_token, s.card_brand, s.card_last_four, s.customer_portal_url, s.update_payment_method_url,
        s.source_updated_at, s.last_event_key, s.pause_mode, s.pause_resumes_at, s.test_mode, s.order_id,
        s.authorization_code, s.original_purchase_at, s.latest_purchase_at, s.unsubscribe_detected_at,
        s.billing_issue_detected_at, s.refunded_at, s.portal_urls_seen_at, s.last_event_at, s.last_event_rank,
        s.partially_refunded_at, s.dispute_opened_at, s.pending_variant_id, s.pending_change_at,
        s.starts_at
        """

    /// Rows naming a provider this build does not know are skipped, not fatal.
    public static func subscription(_ row: PostgresRow) throws -> SubscriptionState? {
        guard let provider = Provider(rawValue: try row.decode(column: "provider", as: String.self)) else { return nil }
        var state = SubscriptionState(provider: provider, subscriptionID: try row.decode(column: "subscription_id"))
        state.appUserID = try row.decode(column: "app_user_id")
        state.customerID = try row.decode(column: "customer_id")
        state.customerEmail = try row.decode(column: "customer_email")
        state.productID = try row.decode(column: "product_id")
        state.variantID = try row.decode(column: "variant_id")
        state.planName = try row.decode(column: "plan_name")
        state.status = try row.decode(column: "status")
        state.renewsAt = try row.decode(column: "renews_at")
        state.endsAt = try row.decode(column: "ends_at")
        state.trialEndsAt = try row.decode(column: "trial_ends_at")
        state.cancelAtPeriodEnd = try row.decode(column: "cancel_at_period_end")
        state.emailToken = try row.decode(column: "email_token")
        state.cardBrand = try row.decode(column: "card_brand")
        state.cardLastFour = try row.decode(column: "card_last_four")
        state.customerPortalURL = try row.decode(column: "customer_portal_url")
        state.updatePaymentMethodURL = try row.decode(column: "update_payment_method_url")
        state.sourceUpdatedAt = try row.decode(column: "source_updated_at")
        state.lastEventKey = try row.decode(column: "last_event_key")
        state.pauseMode = try row.decode(column: "pause_mode")
        state.pauseResumesAt = try row.decode(column: "pause_resumes_at")
        state.testMode = try row.decode(column: "test_mode")
        state.orderID = try row.decode(column: "order_id")
        state.originalPurchaseAt = try row.decode(column: "original_purchase_at")
        state.latestPurchaseAt = try row.decode(column: "latest_purchase_at")
        state.unsubscribeDetectedAt = try row.decode(column: "unsubscribe_detected_at")
        state.billingIssueDetectedAt = try row.decode(column: "billing_issue_detected_at")
        state.refundedAt = try row.decode(column: "refunded_at")
        state.partiallyRefundedAt = try row.decode(column: "partially_refunded_at")
        state.disputeOpenedAt = try row.decode(column: "dispute_opened_at")
        state.portalURLsSeenAt = try row.decode(column: "portal_urls_seen_at")
        state.authorizationCode = try row.decode(column: "authorization_code")
        state.pendingVariantID = try row.decode(column: "pending_variant_id")
        state.pendingChangeAt = try row.decode(column: "pending_change_at")
        state.startsAt = try row.decode(column: "starts_at")
        if let rank: Int32 = try row.decode(column: "last_event_rank") {
            let at: Date? = try row.decode(column: "last_event_at")
            state.foldPosition = SubscriptionFold.Position(at: at ?? .distantPast, rank: Int(rank), key: state.lastEventKey)
        }
        return state
    }

    static func order(_ row: PostgresRow) throws -> ProjectedOrder? {
        guard let provider = Provider(rawValue: try row.decode(column: "provider", as: String.self)) else { return nil }
        var order = ProjectedOrder(provider: provider, orderID: try row.decode(column: "order_id"), status: try row.decode(column: "status"))
        order.appUserID = try row.decode(column: "app_user_id")
        order.customerEmail = try row.decode(column: "customer_email")
        order.productID = try row.decode(column: "product_id")
        order.variantID = try row.decode(column: "variant_id")
        order.productName = try row.decode(column: "product_name")
        order.paidAt = try row.decode(column: "paid_at")
        order.refundedAt = try row.decode(column: "refunded_at")
        order.subscriptionID = try row.decode(column: "subscription_id")
        order.testMode = try row.decode(column: "test_mode")
        order.partiallyRefundedAt = try row.decode(column: "partially_refunded_at")
        order.disputeOpenedAt = try row.decode(column: "dispute_opened_at")
        order.opensSubscription = try row.decode(column: "opens_subscription")
        return order
    }

    static func checkout(_ row: PostgresRow) throws -> ProjectedCheckout? {
        guard let provider = Provider(rawValue: try row.decode(column: "provider", as: String.self)) else { return nil }
        var checkout = ProjectedCheckout(
            checkoutID: try row.decode(column: "checkout_id"), provider: provider, appUserID: try row.decode(column: "app_user_id"),
            variantID: try row.decode(column: "variant_id"), url: try row.decode(column: "url"), createdAt: try row.decode(column: "created_at"))
        checkout.productID = try row.decode(column: "product_id")
        checkout.expiresAt = try row.decode(column: "expires_at")
        checkout.completedAt = try row.decode(column: "completed_at")
        return checkout
    }
}
