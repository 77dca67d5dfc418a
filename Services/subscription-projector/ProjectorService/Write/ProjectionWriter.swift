import Foundation
import Models
import Postgres
import Projection

/// The only writer of the projection: applies a batch of understood records
/// in one PostgreSQL transaction.
///
/// Round trips per batch, whatever its size: BEGIN, one pipeline of every
/// insert and upsert, one query for the current rows of the affected
/// subscriptions (extended in place with events that arrive in order), one
/// query for the events of those that must be folded from the log (events
/// out of order, new subscriptions, Paystack renewals), one pipeline of
/// subscription upserts, COMMIT. Every
/// statement is idempotent and order-independent, so a redelivered or
/// reordered batch converges to the same rows (see ``ProjectionStatements``
/// and ``SubscriptionFold``).
public struct ProjectionWriter: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Applies `inputs` atomically.
    /// - Throws: ``PostgresError`` (nothing of the batch is kept), or an
    ///   `EncodingError` if an event cannot be encoded for the log.
    public func write(_ inputs: [ProjectionInput]) async throws -> ProjectionWriteResult {
        guard !inputs.isEmpty else { return ProjectionWriteResult() }
        let plan = try ProjectionPlan(inputs)
        return try await pool.withConnection { connection in
            try await connection.withTransaction { connection in
                let counts = try await connection.pipeline(statements: ProjectionStatements.all, batch: plan.items)
                var result = ProjectionWriteResult()
                for (index, kind) in plan.counted {
                    let isNew = counts[index] > 0
                    switch kind {
                    case .event: if isNew { result.newEvents += 1 } else { result.duplicateEvents += 1 }
                    case .record: if isNew { result.newRecords += 1 } else { result.duplicateRecords += 1 }
                    }
                }
                result.duplicateEvents += plan.repeatedInBatch
                guard !plan.subscriptionKeys.isEmpty || !plan.renewalLinks.isEmpty else { return result }
                let states = try await fold(plan, counts: counts, on: connection)
                if !states.isEmpty {
                    _ = try await connection.pipeline(
                        statements: [ProjectionStatements.subscription],
                        batch: states.map(Self.subscriptionItem))
                }
                result.subscriptionsProjected = states.count
                return result
            }
        }
    }

    /// The new state of every subscription the batch touched. In the common
    /// case (its new events all come after what its row already applied) the
    /// row is extended with them (``SubscriptionFold/extend(_:with:)``); an
    /// event out of order, a subscription without a row, and Paystack
    /// renewals linked by customer and plan are folded from the whole log.
    /// Duplicates change nothing, so a subscription that got only
    /// duplicates is not written again.
    func fold(_ plan: ProjectionPlan, counts: [Int], on connection: PostgresConnection) async throws -> [SubscriptionState] {
        var fresh: [ProjectionPlan.Pair: [SubscriptionFold.LoggedEvent]] = [:]
        for (item, key, logged) in plan.subscriptionEvents where counts[item] > 0 { fresh[key, default: []].append(logged) }
        var states: [SubscriptionKey: SubscriptionState] = [:]
        var fromLog = Set<ProjectionPlan.Pair>()
        let current = try await rows(Array(fresh.keys), on: connection)
        for (key, events) in fresh {
            if let row = current[key], let extended = SubscriptionFold.extend(row, with: events) {
                states[SubscriptionKey(provider: key.first, subscriptionID: key.second)] = extended
            } else {
                fromLog.insert(key)
            }
        }
        if !fromLog.isEmpty || !plan.renewalLinks.isEmpty {
            // A fold of the whole log wins over an extension of the same subscription.
            for state in try await refold(keys: fromLog, links: plan.renewalLinks, on: connection) {
                states[SubscriptionKey(provider: state.provider.rawValue, subscriptionID: state.subscriptionID)] = state
            }
        }
        return states.keys.sorted().compactMap { states[$0] }
    }

    /// The current rows of `keys` (one query).
    func rows(_ keys: [ProjectionPlan.Pair], on connection: PostgresConnection) async throws -> [ProjectionPlan.Pair: SubscriptionState] {
        guard !keys.isEmpty else { return [:] }
        let list = try ProjectionPlan.jsonArray(keys.map { [$0.first, $0.second] })
        let found = try await connection.query(
            """
            SELECT \(unescaped: SubscriptionStatusReader.subscriptionColumns)
            FROM subscriptions s JOIN jsonb_array_elements(\(list)::jsonb) AS k ON s.provider = k->>0 AND s.subscription_id = k->>1
            """)
        var result: [ProjectionPlan.Pair: SubscriptionState] = [:]
        for row in found {
            guard let state = try SubscriptionStatusReader.subscription(row) else { continue }
            result[ProjectionPlan.Pair(state.provider.rawValue, state.subscriptionID)] = state
        }
        return result
    }

    /// Reads every logged event of `keys` and of the subscriptions `links`
    /// reach (one query) and folds each.
    func refold(
        keys subscriptionKeys: Set<ProjectionPlan.Pair>, links renewalLinks: Set<ProjectionPlan.Pair>,
        on connection: PostgresConnection
    ) async throws -> [SubscriptionState] {
        let keys = try ProjectionPlan.jsonArray(subscriptionKeys.map { [$0.first, $0.second] }.sorted { $0.lexicographicallyPrecedes($1) })
        let links = try ProjectionPlan.jsonArray(renewalLinks.map { [$0.first, $0.second] }.sorted { $0.lexicographicallyPrecedes($1) })
        let rows = try await connection.query(
            """
            WITH keys AS (SELECT k->>0 AS provider, k->>1 AS subscription_id FROM jsonb_array_elements(\(keys)::jsonb) AS k),
                 links AS (SELECT k->>0 AS customer_id, k->>1 AS plan_code FROM jsonb_array_elements(\(links)::jsonb) AS k),
                 subs AS (
                    SELECT provider, subscription_id FROM keys
                    UNION
                    SELECT e.provider, e.subscription_id FROM billing_events AS e
                    JOIN links AS l ON e.customer_id = l.customer_id AND e.plan_code = l.plan_code
                    WHERE e.provider = 'paystack' AND e.subscription_id IS NOT NULL),
                 owners AS (
                    SELECT DISTINCT s.provider, s.subscription_id, e.customer_id, e.plan_code FROM subs AS s
                    JOIN billing_events AS e ON e.provider = s.provider AND e.subscription_id = s.subscription_id
                    WHERE s.provider = 'paystack' AND e.customer_id IS NOT NULL AND e.plan_code IS NOT NULL)
            SELECT s.provider, s.subscription_id, e.dedup_key, e.event::text FROM subs AS s
            JOIN billing_events AS e ON e.provider = s.provider AND e.subscription_id = s.subscription_id
            UNION
            SELECT o.provider, o.subscription_id, e.dedup_key, e.event::text FROM owners AS o
            JOIN billing_events AS e ON e.provider = 'paystack' AND e.subscription_id IS NULL
                AND e.customer_id = o.customer_id AND e.plan_code = o.plan_code
                AND e.kind IN ('paymentSucceeded', 'paymentRecovered')
            """)
        var grouped: [SubscriptionKey: [SubscriptionFold.LoggedEvent]] = [:]
        for row in rows {
            let (provider, subscriptionID, dedupKey, json) = try row.decode((String, String, String, String).self)
            let event = try RecordCoding.decode(BillingEvent.self, from: Array(json.utf8))
            grouped[SubscriptionKey(provider: provider, subscriptionID: subscriptionID), default: []]
                .append(.init(dedupKey: dedupKey, event: event))
        }
        return grouped.keys.sorted().compactMap { key in
            guard let provider = Provider(rawValue: key.provider), let events = grouped[key] else { return nil }
            return SubscriptionFold.fold(provider: provider, subscriptionID: key.subscriptionID, events: events)
        }
    }

    static func subscriptionItem(_ s: SubscriptionState) -> PostgresBatchItem {
        PostgresBatchItem(
            ProjectionStatements.subscription,
            [
                s.provider.rawValue, s.subscriptionID, s.customerID, s.customerEmail, s.productID, s.variantID,
                s.planName, s.status, s.renewsAt, s.endsAt, s.trialEndsAt, s.cancelAtPeriodEnd, s.emailToken, s.cardBrand,
                s.cardLastFour, s.customerPortalURL, s.updatePaymentMethodURL, s.sourceUpdatedAt, s.lastEventKey,
                s.pauseMode, s.pauseResumesAt, s.testMode, s.orderID, s.authorizationCode, s.originalPurchaseAt,
                s.latestPurchaseAt, s.unsubscribeDetectedAt, s.billingIssueDetectedAt, s.refundedAt, s.portalURLsSeenAt,
                // distantPast (no provider time) is stored as NULL.
                s.foldPosition.flatMap { $0.at == .distantPast ? nil : $0.at }, s.foldPosition.map { Int32($0.rank) },
            ])
    }
}

/// A subscription's primary key, sortable so upserts run in a stable order.
struct SubscriptionKey: Hashable, Comparable {
    var provider: String
    var subscriptionID: String
    static func < (a: Self, b: Self) -> Bool { (a.provider, a.subscriptionID) < (b.provider, b.subscriptionID) }
}
