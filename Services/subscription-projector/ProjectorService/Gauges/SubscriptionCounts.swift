import Postgres

/// How many projected subscriptions share one provider, plan and status.
public struct SubscriptionCount: Sendable, Hashable {
    public var provider: String
    /// The plan's name as projected; empty when the provider named none.
    public var plan: String
    /// The provider's own status (`active`, `on_trial`, `past_due`, `attention`, …).
    public var status: String
    public var subscriptions: Int
    /// Of those, the ones with a billing issue recorded (a failed renewal the
    /// provider is retrying or gave up on).
    public var withBillingIssue: Int

    public init(provider: String, plan: String, status: String, subscriptions: Int, withBillingIssue: Int) {
        self.provider = provider
        self.plan = plan
        self.status = status
        self.subscriptions = subscriptions
        self.withBillingIssue = withBillingIssue
    }
}

/// Where the counts come from: PostgreSQL, or a fake in unit tests.
public protocol SubscriptionCountsSource: Sendable {
    /// Every (provider, plan, status) group that has at least one subscription.
    func counts() async throws -> [SubscriptionCount]
}

/// Counts the `subscriptions` table in one grouped query (the projector's
/// role may read it). Its cost grows with the table, which the timer in
/// ``SubscriptionGauges`` keeps to once per interval.
public struct PostgresSubscriptionCounts: SubscriptionCountsSource {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func counts() async throws -> [SubscriptionCount] {
        let rows = try await pool.query(
            """
            SELECT provider, coalesce(plan_name, ''), status, count(*), count(billing_issue_detected_at)
            FROM subscriptions GROUP BY 1, 2, 3
            """)
        return try rows.map { row in
            let (provider, plan, status, subscriptions, withBillingIssue) = try row.decode((String, String, String, Int, Int).self)
            return SubscriptionCount(provider: provider, plan: plan, status: status, subscriptions: subscriptions, withBillingIssue: withBillingIssue)
        }
    }
}
