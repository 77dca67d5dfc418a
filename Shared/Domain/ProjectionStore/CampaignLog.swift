import Foundation
import BillingModel
import Entitlements
import Postgres

/// Reads what the report by campaign needs (`storefront report
/// --campaigns`, docs/revenue.md, "By campaign"): the checkouts' tags
/// (`checkouts.ref`, projection migration 15), which purchases each
/// checkout made, and the revenue log (``RevenueLog``) for those
/// purchases' new MRR. Only reads; `storefront_readonly` may run it (it reads
/// `checkouts`, `orders`, `subscriptions` and `billing_events` itself, which the
/// reconciler's role may not).
public enum CampaignLog {
    /// The rows for `period`, figures stopping at the earlier of `asOf` and
    /// the period's end.
    ///
    /// One transaction, `REPEATABLE READ`: the counts, the links and the
    /// log are read in one snapshot, so a purchase projected meanwhile is
    /// either in all of them or in none.
    /// - Throws: ``PostgresError`` when the database cannot be read.
    public static func report(_ period: ReportPeriod, pool: PostgresPool, prices: PriceBook, asOf: Date) async throws -> [CampaignReportRow] {
        let end = min(asOf, period.to)
        let buckets = period.buckets(upTo: end)
        return try await pool.withTransaction { connection in
            try await connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            let counts = try await counts(buckets, on: connection)
            let links = try await links(before: end, on: connection)
            let log = try await RevenueLog.read(on: connection, before: end)
            let histories = Set(links.map { RevenueLog.SubscriptionKey(provider: $0.provider, subscriptionID: $0.subscriptionID) }).compactMap {
                key in
                log.subscriptionEvents[key].map {
                    SubscriptionRevenueHistory(provider: key.provider, subscriptionID: key.subscriptionID, events: $0, prices: prices)
                }
            }
            return CampaignReport.build(counts: counts, links: links, histories: histories, period: period, asOf: end)
        }
    }

    /// Per bucket and tag: checkouts opened (`created_at`) and completed
    /// (`completed_at`, which the projector sets from the first purchase of the
    /// checkout), and one-time purchases paid (`orders.paid_at`) through a
    /// checkout that sold no subscription. The buckets travel as two arrays
    /// of bounds, so the rule "in `[start, end)`" is the report's own.
    static func counts(_ buckets: [DateInterval], on connection: PostgresConnection) async throws -> [CampaignReport.Counts] {
        guard !buckets.isEmpty else { return [] }
        let starts = try PostgresBind.array(buckets.map(\.start.postgresBind), of: .timestamptz)
        let ends = try PostgresBind.array(buckets.map(\.end.postgresBind), of: .timestamptz)
        let rows = try await connection.query(
            """
            WITH bucket AS (SELECT b.start, b.stop FROM unnest(\(starts)::timestamptz[], \(ends)::timestamptz[]) AS b(start, stop))
            SELECT 'opened' AS figure, b.start, c.ref, count(*) FROM checkouts AS c
                JOIN bucket AS b ON c.created_at >= b.start AND c.created_at < b.stop
                GROUP BY b.start, c.ref
            UNION ALL
            SELECT 'completed', b.start, c.ref, count(*) FROM checkouts AS c
                JOIN bucket AS b ON c.completed_at >= b.start AND c.completed_at < b.stop
                GROUP BY b.start, c.ref
            UNION ALL
            SELECT 'one_time', b.start, c.ref, count(*) FROM orders AS o
                JOIN checkouts AS c ON c.checkout_id = o.checkout_id AND c.provider = o.provider
                JOIN bucket AS b ON o.paid_at >= b.start AND o.paid_at < b.stop
                WHERE o.subscription_id IS NULL AND c.is_subscription IS NOT TRUE
                GROUP BY b.start, c.ref
            """)
        return try rows.map { row in
            let (figure, start, ref, count) = try row.decode((String, Date, String?, Int64).self)
            var counts = CampaignReport.Counts(periodStart: start, ref: ref)
            switch figure {
            case "opened": counts.checkoutsOpened = Int(count)
            case "completed": counts.checkoutsCompleted = Int(count)
            default: counts.oneTimePurchases = Int(count)
            }
            return counts
        }
    }

    /// The checkouts that made each subscription, with their tags, through
    /// the joins the completion page uses (`WebFirstReads.purchase(ofCheckout:)`):
    /// an event of the subscription names the checkout, or (Paystack) the
    /// checkout's charge and the subscription share their card authorization
    /// and customer. Only events logged before `before` link. A subscription
    /// may have several (``CampaignReport/attribute(_:histories:)`` picks one).
    static func links(before: Date, on connection: PostgresConnection) async throws -> [CampaignReport.Link] {
        let rows = try await connection.query(
            """
            SELECT c.provider, e.subscription_id, c.checkout_id, c.ref, c.created_at, false AS through_card
            FROM checkouts AS c
            JOIN billing_events AS e ON e.checkout_id = c.checkout_id AND e.provider = c.provider
            WHERE e.subscription_id IS NOT NULL AND (e.ordering_ts IS NULL OR e.ordering_ts < \(before))
            UNION
            SELECT c.provider, s.subscription_id, c.checkout_id, c.ref, c.created_at, true
            FROM checkouts AS c
            JOIN billing_events AS e ON e.checkout_id = c.checkout_id AND e.provider = c.provider
            JOIN subscriptions AS s ON s.provider = c.provider AND s.authorization_code = e.authorization_code
                AND s.customer_id = e.customer_id
            WHERE e.authorization_code IS NOT NULL AND (e.ordering_ts IS NULL OR e.ordering_ts < \(before))
            """)
        return try rows.compactMap { row in
            let (providerName, subscriptionID, checkoutID, ref, openedAt, throughCard) = try row.decode(
                (String, String, String, String?, Date, Bool).self)
            guard let provider = Provider(rawValue: providerName) else { return nil }
            return CampaignReport.Link(
                provider: provider, subscriptionID: subscriptionID, checkoutID: checkoutID, ref: ref, openedAt: openedAt, throughCard: throughCard)
        }
    }
}
