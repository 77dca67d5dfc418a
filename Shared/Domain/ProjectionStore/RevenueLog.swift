import Foundation
import BillingModel
import Entitlements
import Postgres

/// Reads what the revenue report needs from the event log (`billing_events`,
/// through the view `revenue_events`, projection migration 10): every event
/// of every subscription, with the recurring price its columns hold
/// (migration 8), and the refunds and disputes of the period. Only reads;
/// the roles `storefront_readonly` (`storefront report`) and
/// `storefront_reconciler` (the revenue gauges) may run it.
public struct RevenueLog: Sendable {
    /// A refund or dispute event that cannot be read back is skipped and
    /// named here; so is a subscription event (its subscription is folded
    /// without it, as the projector would).
    public var unreadable: [String] = []
    public var subscriptionEvents: [SubscriptionKey: [SubscriptionFold.LoggedEvent]] = [:]
    public var moneyEvents: [SubscriptionFold.LoggedEvent] = []
    /// Rows the read returned: what its cost grows with.
    public var rowsRead = 0

    /// A provider's subscription.
    public struct SubscriptionKey: Hashable, Sendable, Comparable {
        public var provider: Provider
        public var subscriptionID: String
        public static func < (a: Self, b: Self) -> Bool { (a.provider.rawValue, a.subscriptionID) < (b.provider.rawValue, b.subscriptionID) }
    }

    /// Rows fetched per page of ``read(from:before:pageRows:)``.
    public static let pageRows = 1000

    /// Reads the log up to `before` (exclusive; events without a provider
    /// time are read as the fold reads them: first).
    ///
    /// Through a cursor, `pageRows` rows at a time, in one transaction (one
    /// snapshot, as the single query had): the decoded events stay, but the rows'
    /// JSON text is never all in memory at once. Reading the whole result
    /// in one go held it twice (libpq's result and the rows' strings) beside
    /// the decoded events: about 40 MB more resident memory in the reconciler
    /// at 20,000 events, whose revenue gauges read it on a schedule (issue
    /// 22's memory figures, docs/testing-and-benchmarks.md).
    /// - Throws: ``PostgresError`` when the database cannot be read.
    public static func read(from pool: PostgresPool, before: Date, pageRows: Int = RevenueLog.pageRows) async throws -> RevenueLog {
        try await pool.withTransaction { connection in
            try await read(on: connection, before: before, pageRows: pageRows)
        }
    }

    /// ``read(from:before:pageRows:)`` on `connection`, which must be inside
    /// a transaction (the cursor lives as long as it): for a caller that
    /// reads more beside the log in the same snapshot (the campaign figures,
    /// ``CampaignLog``).
    /// - Throws: ``PostgresError`` when the database cannot be read.
    public static func read(on connection: PostgresConnection, before: Date, pageRows: Int = RevenueLog.pageRows) async throws -> RevenueLog {
        let pageRows = max(1, pageRows)
        try await connection.execute(
            """
            DECLARE revenue_log NO SCROLL CURSOR FOR
            SELECT provider, subscription_id, dedup_key, event::text, price_amount, price_currency, interval_unit, interval_count
            FROM revenue_events
            WHERE (subscription_id IS NOT NULL OR kind IN ('orderRefunded', 'paymentRefunded', 'refundProcessed', 'disputeCreated'))
                AND (ordering_ts IS NULL OR ordering_ts < \(before))
            ORDER BY provider, subscription_id, dedup_key
            """)
        var log = RevenueLog()
        while true {
            // An integer of ours, not input: FETCH takes no parameter.
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "FETCH FORWARD \(pageRows) FROM revenue_log"))
            log.rowsRead += rows.count
            for row in rows { try log.add(row) }
            if rows.count < pageRows { break }
        }
        try await connection.execute("CLOSE revenue_log")
        log.moneyEvents = log.withoutRefundsCountedTwice(log.moneyEvents)
        return log
    }

    /// Adds one row of the read.
    private mutating func add(_ row: PostgresRow) throws {
        let (providerName, subscriptionID, dedupKey, json, amount, currency, unit, count) = try row.decode(
            (String, String?, String, String, Int64?, String?, String?, Int32?).self)
        let price = Self.price(amount: amount, currency: currency, unit: unit, count: count)
        guard let entry = Entry(provider: providerName, subscriptionID: subscriptionID, dedupKey: dedupKey, json: json, price: price) else {
            unreadable.append(dedupKey)
            return
        }
        add(entry)
    }

    /// Adds one decoded row: to its subscription's history, and to the
    /// refunds and disputes when it is one.
    mutating func add(_ entry: Entry) {
        if let subscription = entry.subscription {
            subscriptionEvents[subscription, default: []].append(entry.logged)
        }
        if entry.isMoney {
            moneyEvents.append(entry.logged)
        }
    }

    /// A provider whose subscriptions have a first order
    /// (``ProviderTraits/subscriptionsHaveAFirstOrder``) may announce the
    /// refund of a subscription's first payment twice (Lemon Squeezy): as its order's `order_refunded` and as its invoice's
    /// `subscription_payment_refunded` (the sandbox does). When the
    /// subscription has invoice refunds, they count the money and its first
    /// order's refunds are left out; otherwise the order's count.
    func withoutRefundsCountedTwice(_ events: [SubscriptionFold.LoggedEvent]) -> [SubscriptionFold.LoggedEvent] {
        var subscriptionOfOrder: [String: String] = [:]
        var subscriptionsWithInvoiceRefunds = Set<String>()
        for (key, logged) in subscriptionEvents where key.provider.traits.subscriptionsHaveAFirstOrder {
            for entry in logged {
                if let order = entry.event.orderID { subscriptionOfOrder[order] = key.subscriptionID }
                if entry.event.kind == .paymentRefunded { subscriptionsWithInvoiceRefunds.insert(key.subscriptionID) }
            }
        }
        return events.filter { logged in
            guard logged.event.provider.traits.subscriptionsHaveAFirstOrder, logged.event.kind == .orderRefunded, let order = logged.event.orderID,
                let subscription = subscriptionOfOrder[order]
            else { return true }
            return !subscriptionsWithInvoiceRefunds.contains(subscription)
        }
    }

    /// The subscriptions' histories, in key order. A subscription that
    /// replaced another (``BillingEvent/replacesSubscriptionID``: a Paystack
    /// plan change) continues the one it replaced
    /// (``SubscriptionRevenueHistory/continued(by:from:)``) instead of standing alone.
    public func histories(prices: PriceBook) -> [SubscriptionRevenueHistory] {
        var histories: [SubscriptionKey: SubscriptionRevenueHistory] = [:]
        for (key, events) in subscriptionEvents {
            histories[key] = SubscriptionRevenueHistory(provider: key.provider, subscriptionID: key.subscriptionID, events: events, prices: prices)
        }
        // The latest replacement first, so a chain (A replaced by B, B by C) folds into A.
        for link in replacements.sorted(by: { $0.start > $1.start }) {
            guard let replaced = histories[link.replaced], let successor = histories[link.successor] else { continue }
            histories[link.replaced] = replaced.continued(by: successor, from: link.start)
            histories[link.successor] = nil
        }
        return histories.keys.sorted().compactMap { histories[$0] }
    }

    /// Each subscription that says it replaces another from a date.
    var replacements: [(successor: SubscriptionKey, replaced: SubscriptionKey, start: Date)] {
        subscriptionEvents.compactMap { key, events in
            guard let event = events.first(where: { $0.event.replacesSubscriptionID != nil && $0.event.startsAt != nil })?.event,
                let replaced = event.replacesSubscriptionID, let start = event.startsAt, replaced != key.subscriptionID
            else { return nil }
            return (key, SubscriptionKey(provider: key.provider, subscriptionID: replaced), start)
        }
    }

    static func price(amount: Int64?, currency: String?, unit: String?, count: Int32?) -> RecurringPrice? {
        guard let amount, let currency, let unit = unit.flatMap(BillingInterval.Unit.init(rawValue:)) else { return nil }
        return RecurringPrice(amount: amount, currency: currency, interval: BillingInterval(unit: unit, count: Int(count ?? 1)))
    }
}
