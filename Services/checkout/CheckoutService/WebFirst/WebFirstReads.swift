import Foundation
import BillingModel
import Postgres

/// What the web-first routes read of the projection (the projector writes it;
/// the checkout only reads, docs/architecture.md).
struct WebFirstReads: Sendable {
    let pool: PostgresPool

    /// A checkout as the completion page needs it.
    struct Checkout: Sendable, Hashable {
        var provider: String
        /// nil for an anonymous checkout.
        var appUserID: String?
        var isSubscription: Bool?
        var ref: String?
    }

    /// A purchase and what the web-first routes weigh: its owner and buyer email.
    struct Purchase: Sendable, Hashable {
        var reference: PurchaseReference
        var owner: String?
        var email: String?
    }

    func checkout(_ checkoutID: String) async throws -> Checkout? {
        let rows = try await pool.query(
            "SELECT provider, app_user_id, is_subscription, ref FROM checkouts WHERE checkout_id = \(checkoutID)")
        guard let row = rows.first else { return nil }
        let (provider, user, isSubscription, ref) = try row.decode((String, String?, Bool?, String?).self)
        return Checkout(provider: provider, appUserID: user, isSubscription: isSubscription, ref: ref)
    }

    /// The checkout whose provider id (Paystack's transaction reference) is `reference`.
    func checkoutID(providerReference reference: String) async throws -> String? {
        let rows = try await pool.query("SELECT checkout_id FROM checkouts WHERE provider_checkout_id = \(reference) LIMIT 1")
        guard let row = rows.first else { return nil }
        return try row.decode(String.self)
    }

    /// The purchase that grants what checkout `checkoutID` sold: its
    /// subscription when it sold one (named by an event of the checkout, or,
    /// for Paystack, created by the checkout's charge: the same card
    /// authorization and customer, first seen within a day of the charge, the
    /// nearest in time when the card paid for several), else its order. nil
    /// until projected.
    func purchase(ofCheckout checkoutID: String, provider: String, isSubscription: Bool?) async throws -> Purchase? {
        let subscriptions = try await pool.query(
            """
            SELECT s.subscription_id, s.app_user_id, s.customer_email
            FROM billing_events AS e JOIN subscriptions AS s ON s.provider = e.provider AND (
                s.subscription_id = e.subscription_id
                OR (e.authorization_code IS NOT NULL AND s.authorization_code = e.authorization_code AND s.customer_id = e.customer_id
                    AND abs(extract(epoch FROM COALESCE(s.original_purchase_at, s.first_seen_at) - COALESCE(e.ordering_ts, e.received_at)))
                        < 86400))
            WHERE e.checkout_id = \(checkoutID) AND e.provider = \(provider)
            ORDER BY s.subscription_id IS NOT DISTINCT FROM e.subscription_id DESC,
                abs(extract(epoch FROM COALESCE(s.original_purchase_at, s.first_seen_at) - COALESCE(e.ordering_ts, e.received_at))),
                s.subscription_id
            LIMIT 1
            """)
        if let row = subscriptions.first {
            let (id, owner, email) = try row.decode((String, String?, String?).self)
            return Purchase(reference: PurchaseReference(provider: provider, type: .subscription, id: id), owner: owner, email: email)
        }
        // A subscription checkout's first order grants nothing on its own: wait for the subscription.
        if isSubscription == true { return nil }
        let orders = try await pool.query(
            """
            SELECT order_id, app_user_id, customer_email FROM orders
            WHERE provider = \(provider) AND checkout_id = \(checkoutID) ORDER BY order_id LIMIT 1
            """)
        guard let row = orders.first else { return nil }
        let (id, owner, email) = try row.decode((String, String?, String?).self)
        return Purchase(reference: PurchaseReference(provider: provider, type: .order, id: id), owner: owner, email: email)
    }

    /// The purchase's owner now (the projection's row), and its buyer email.
    func purchase(_ reference: PurchaseReference) async throws -> Purchase? {
        let rows: [PostgresRow]
        switch reference.type {
        case .subscription:
            rows = try await pool.query(
                """
                SELECT app_user_id, customer_email FROM subscriptions
                WHERE provider = \(reference.provider) AND subscription_id = \(reference.id)
                """)
        case .order:
            rows = try await pool.query(
                "SELECT app_user_id, customer_email FROM orders WHERE provider = \(reference.provider) AND order_id = \(reference.id)")
        }
        guard let row = rows.first else { return nil }
        let (owner, email) = try row.decode((String?, String?).self)
        return Purchase(reference: reference, owner: owner, email: email)
    }

    /// Purchases nobody owns whose buyer typed `email` at checkout (at most
    /// `limit`, newest first): subscriptions, and orders that are not a
    /// subscription's payment.
    func unownedPurchases(email: String, limit: Int) async throws -> [Purchase] {
        let rows = try await pool.query(
            """
            (SELECT 'subscription' AS type, provider, subscription_id AS id, customer_email, latest_purchase_at AS at FROM subscriptions
             WHERE app_user_id IS NULL AND lower(customer_email) = \(email))
            UNION ALL
            (SELECT 'order', provider, order_id, customer_email, paid_at FROM orders
             WHERE app_user_id IS NULL AND subscription_id IS NULL AND lower(customer_email) = \(email))
            ORDER BY at DESC NULLS LAST LIMIT \(limit)
            """)
        return try rows.map { row in
            let (type, provider, id, email, _) = try row.decode((String, String, String, String?, Date?).self)
            return Purchase(
                reference: PurchaseReference(provider: provider, type: PurchaseType(rawValue: type) ?? .order, id: id), owner: nil, email: email)
        }
    }
}
