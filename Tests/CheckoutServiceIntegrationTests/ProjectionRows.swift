import Foundation
import Postgres

/// Inserts projection rows directly (the projector is another service's job).
enum ProjectionRows {
    static func subscription(
        _ pool: PostgresPool, provider: String, id: String, appUserID: String?, customerID: String? = nil, email: String? = nil,
        product: String? = nil, variant: String? = nil, plan: String? = nil, status: String, renewsAt: Date? = nil, endsAt: Date? = nil,
        cancelAtPeriodEnd: Bool = false, emailToken: String? = nil, portal: String? = nil, updatedAt: Date = Date(),
        firstSeenAt: Date = Date().addingTimeInterval(-3600), portalSeenAt: Date? = nil
    ) async throws {
        try await pool.execute(
            """
            INSERT INTO subscriptions (provider, subscription_id, app_user_id, customer_id, customer_email, product_id, variant_id,
                plan_name, status, renews_at, ends_at, cancel_at_period_end, email_token, customer_portal_url, source_updated_at,
                last_event_key, first_seen_at, portal_urls_seen_at)
            VALUES (\(provider), \(id), \(appUserID), \(customerID), \(email), \(product), \(variant), \(plan), \(status), \(renewsAt),
                \(endsAt), \(cancelAtPeriodEnd), \(emailToken), \(portal), \(updatedAt), \("test:" + id), \(firstSeenAt),
                \(portal == nil ? nil : portalSeenAt ?? updatedAt))
            """)
    }

    static func order(
        _ pool: PostgresPool, provider: String, id: String, appUserID: String?, email: String? = nil, product: String?,
        variant: String?, status: String, paidAt: Date?, refundedAt: Date? = nil
    ) async throws {
        try await pool.execute(
            """
            INSERT INTO orders (provider, order_id, app_user_id, customer_email, product_id, variant_id, product_name, status, paid_at, refunded_at)
            VALUES (\(provider), \(id), \(appUserID), \(email), \(product), \(variant), 'Thing', \(status), \(paidAt), \(refundedAt))
            """)
    }

    static func checkout(_ pool: PostgresPool, id: String, provider: String, appUserID: String, createdAt: Date) async throws {
        try await pool.execute(
            """
            INSERT INTO checkouts (checkout_id, provider, app_user_id, email, variant_id, url, created_at, expires_at)
            VALUES (\(id), \(provider), \(appUserID), 'x@example.com', 'ls_2', \("https://pay.example.com/" + id), \(createdAt),
                    \(createdAt.addingTimeInterval(3600)))
            """)
    }

    /// Gives a purchase its owner, as the projector does.
    static func owner(_ pool: PostgresPool, provider: String, type: String = "subscription", id: String, appUserID: String) async throws {
        try await pool.execute(
            """
            INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
            VALUES (\(provider), \(type), \(id), \(appUserID), 'checkout', 'test')
            """)
        let table = type == "order" ? "orders" : "subscriptions", column = type == "order" ? "order_id" : "subscription_id"
        try await pool.execute(
            """
            UPDATE \(identifier: table) SET app_user_id = \(appUserID) WHERE provider = \(provider) AND \(identifier: column) = \(id)
            """)
    }

    static func customer(_ pool: PostgresPool, provider: String, customerID: String, appUserID: String) async throws {
        try await pool.execute(
            """
            INSERT INTO provider_customers (provider, customer_id, app_user_id) VALUES (\(provider), \(customerID), \(appUserID))
            """)
    }
}
