import Foundation
import Postgres
import ProjectorService
import Testing

/// The grouped count behind `storefront_subscriptions`, against the real schema.
@Suite struct SubscriptionCountsTests {
    @Test func countsByProviderPlanAndStatusWithBillingIssues() async throws {
        try await Support.withDatabase { pool in
            let issue = Date(timeIntervalSince1970: 1_800_000_000)
            let rows: [(String, String, String?, String, Date?)] = [
                ("lemonsqueezy", "1", "Pro", "active", nil),
                ("lemonsqueezy", "2", "Pro", "active", nil),
                ("lemonsqueezy", "3", "Pro", "past_due", issue),
                ("paystack", "SUB_a", "Basic", "attention", issue),
                ("paystack", "SUB_b", nil, "active", nil),
            ]
            for (provider, id, plan, status, billingIssue) in rows {
                try await pool.execute(
                    """
                    INSERT INTO subscriptions (provider, subscription_id, plan_name, status, billing_issue_detected_at, last_event_key)
                    VALUES (\(provider), \(id), \(plan), \(status), \(billingIssue), 'k')
                    """)
            }
            let counts = Set(try await PostgresSubscriptionCounts(pool: pool).counts())
            #expect(
                counts == [
                    SubscriptionCount(provider: "lemonsqueezy", plan: "Pro", status: "active", subscriptions: 2, withBillingIssue: 0),
                    SubscriptionCount(provider: "lemonsqueezy", plan: "Pro", status: "past_due", subscriptions: 1, withBillingIssue: 1),
                    SubscriptionCount(provider: "paystack", plan: "Basic", status: "attention", subscriptions: 1, withBillingIssue: 1),
                    SubscriptionCount(provider: "paystack", plan: "", status: "active", subscriptions: 1, withBillingIssue: 0),
                ])
        }
    }
}
