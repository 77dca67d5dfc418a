import Postgres

/// What the projection holds for one app user, without the values that
/// differ between two purchases by design (ids, emails, provider clock times).
struct ProjectionSnapshot: Equatable, CustomStringConvertible {
    struct Subscription: Equatable {
        var status: String
        var planName: String?
        var productID: String?
        var variantID: String?
        var cancelAtPeriodEnd: Bool
        var cardBrand: String?
        var cardLastFour: String?
        var hasRenewalDate: Bool
        /// The provider's own deliveries in the log; the reconciler's snapshots and
        /// the commands' observations (`storefront.…`) vary with timing by design.
        var loggedWebhooks: Int
    }

    struct Order: Equatable {
        var status: String
        var productID: String?
        var variantID: String?
        var amount: Int64?
        var currency: String?
    }

    var subscriptions: [Subscription]
    var orders: [Order]

    var description: String { "subscriptions \(subscriptions), orders \(orders)" }

    static func of(appUserID: String, pool: PostgresPool) async throws -> ProjectionSnapshot {
        let subscriptionRows = try await pool.query(
            """
            SELECT s.status, s.plan_name, s.product_id, s.variant_id, s.cancel_at_period_end, s.card_brand,
                   s.card_last_four, s.renews_at IS NOT NULL,
                   (SELECT count(*) FROM billing_events e WHERE e.provider = s.provider AND e.subscription_id = s.subscription_id
                    AND e.event_name NOT LIKE 'storefront.%')
            FROM subscriptions s WHERE s.app_user_id = \(appUserID) ORDER BY s.product_id, s.variant_id
            """)
        let orderRows = try await pool.query(
            """
            SELECT status, product_id, variant_id, amount, currency FROM orders
            WHERE app_user_id = \(appUserID) ORDER BY product_id, variant_id
            """)
        return ProjectionSnapshot(
            subscriptions: try subscriptionRows.map { row in
                let (status, plan, product, variant, cancel, brand, lastFour, renews, events) =
                    try row.decode((String, String?, String?, String?, Bool, String?, String?, Bool, Int).self)
                return Subscription(
                    status: status, planName: plan, productID: product, variantID: variant, cancelAtPeriodEnd: cancel,
                    cardBrand: brand, cardLastFour: lastFour, hasRenewalDate: renews, loggedWebhooks: events)
            },
            orders: try orderRows.map { row in
                let (status, product, variant, amount, currency) = try row.decode((String, String?, String?, Int64?, String?).self)
                return Order(status: status, productID: product, variantID: variant, amount: amount, currency: currency)
            })
    }
}

import CryptoPrimitives
import Foundation

/// A well-formed token signed with a secret the stack does not know.
enum ForgedToken {
    static func make(subject: String, email: String) throws -> String {
        let secret = try SecureRandom.bytes(count: 32)
        let now = Int(Date().timeIntervalSince1970)
        return try JWTSigner(hs256Secret: secret).sign([
            "sub": .string(subject), "email": .string(email), "iat": .int(now), "exp": .int(now + 600),
        ])
    }
}
