import Foundation
import BillingModel
import Postgres
import ProjectionStore
import Entitlements

/// The only writer of the projection: applies a batch of understood records
/// in one PostgreSQL transaction.
///
/// Round trips per batch, whatever its size: BEGIN, the locks, one
/// set-based insert of the batch's events into the log, one pipeline of
/// every other insert and upsert (``run(_:on:)``), one query for the current
/// rows of the affected subscriptions (extended in place with events that
/// arrive in order), one query for the events of those that must be folded
/// from the log (events out of order, new subscriptions, Paystack
/// renewals), one set-based upsert of the folded subscriptions, COMMIT; a batch with reconciler snapshots first
/// takes its locks and asks which snapshots repeat the log (two round
/// trips), and leaves those out (``SnapshotRepeats``). Every
/// statement is idempotent and order-independent, so a redelivered or
/// reordered batch converges to the same rows (see ``ProjectionStatements``
/// and ``SubscriptionFold``).
public struct ProjectionWriter: Sendable {
    public let pool: PostgresPool
    /// Records the batch's entitlement changes, last in its transaction; nil:
    /// no outbox (tools and tests that only project).
    public let outbox: EntitlementOutbox?

    public init(pool: PostgresPool, outbox: EntitlementOutbox? = nil) {
        self.pool = pool
        self.outbox = outbox
    }

    /// Applies `inputs` atomically.
    /// - Throws: ``PostgresError`` (nothing of the batch is kept), or an
    ///   `EncodingError` if an event cannot be encoded for the log.
    public func write(_ inputs: [ProjectionInput]) async throws -> ProjectionWriteResult {
        guard !inputs.isEmpty else { return ProjectionWriteResult() }
        let snapshots = SnapshotRepeats.candidates(inputs)
        // Built here when there is nothing to leave out, so an encoding error surfaces before the transaction.
        let fullPlan = snapshots.isEmpty ? try ProjectionPlan(inputs) : nil
        return try await pool.withConnection { connection in
            // The outbox step sees every row the batch wrote and commits with them.
            try await connection.withTransaction(beforeCommit: { try await outbox?.record(after: inputs, on: $0) }) { connection in
                let (plan, repeatedSnapshots) =
                    if let fullPlan { (fullPlan, 0) } else { try await Self.leavingOutRepeats(inputs, snapshots, on: connection) }
                let counts = try await Self.run(plan, on: connection)
                var result = ProjectionWriteResult()
                for (index, kind) in plan.counted {
                    let isNew = counts[index] > 0
                    switch kind {
                    case .event: if isNew { result.newEvents += 1 } else { result.duplicateEvents += 1 }
                    case .record: if isNew { result.newRecords += 1 } else { result.duplicateRecords += 1 }
                    }
                }
                result.duplicateEvents += plan.repeatedInBatch + repeatedSnapshots
                result.unlinkedMoneyBack = try await unlinkedMoneyBack(plan, counts: counts, on: connection)
                guard
                    !plan.subscriptionKeys.isEmpty || !plan.renewalLinks.isEmpty || !plan.moneyEvents.isEmpty
                        || !plan.refundedOrders.isEmpty
                else { return result }
                let states = try await fold(plan, counts: counts, unreadable: &result.unreadableLoggedEvents, on: connection)
                if !states.isEmpty {
                    try await connection.execute(try ProjectionStatements.subscriptions(states.map(Self.subscriptionRow)))
                }
                result.subscriptionsProjected = states.count
                return result
            }
        }
    }

    /// The plan without the snapshots that repeat the log
    /// (``SnapshotRepeats``), and how many records were left out. The
    /// batch's locks are taken first, so the check and the writes see the
    /// same log for every purchase the batch names; the plan, built only for
    /// what is kept, takes them again (they are re-entrant).
    static func leavingOutRepeats(
        _ inputs: [ProjectionInput], _ snapshots: [SnapshotRepeats.Candidate], on connection: PostgresConnection
    ) async throws -> (ProjectionPlan, Int) {
        _ = try await connection.pipeline(statements: [ProjectionStatements.lock], batch: [try ProjectionPlan.lockItem(inputs)])
        let repeats = try await SnapshotRepeats.find(snapshots, on: connection)
        let kept = inputs.filter { input in
            guard case .webhook(let delivery) = input else { return true }
            return !repeats.contains(delivery.dedupKey)
        }
        return (try ProjectionPlan(kept), inputs.count - kept.count)
    }

    /// The new state of every subscription the batch touched. In the common
    /// case (its new events all come after what its row already applied) the
    /// row is extended with them (``SubscriptionFold/extend(_:with:)``); an
    /// event out of order, a subscription without a row, one whose new events
    /// link other logged events to it, and every subscription reached only
    /// through the log (a Paystack renewal, a refund or dispute, a refunded
    /// first order) are folded from the whole log. Before reading anything,
    /// every one of them is locked by its purchase key, the key commands and
    /// webhooks of that purchase also take, so a concurrent batch's events
    /// are either all seen or all after. Duplicates change nothing, so a
    /// subscription that got only duplicates is not written again.
    func fold(
        _ plan: ProjectionPlan, counts: [Int], unreadable: inout [String], on connection: PostgresConnection
    ) async throws -> [SubscriptionState] {
        var fresh: [ProjectionPlan.Pair: [SubscriptionFold.LoggedEvent]] = [:]
        for (item, key, logged) in plan.subscriptionEvents where counts[item] > 0 { fresh[key, default: []].append(logged) }
        let linked = try await linkedSubscriptions(plan, on: connection)
        guard !fresh.isEmpty || !linked.isEmpty else { return [] }
        // The batch's first statement locked the purchase key of every
        // subscription its records name (the fresh ones); those reached only
        // through the log are locked here, before anything is read.
        let unlocked = linked.subtracting(plan.subscriptionEvents.map(\.key))
        if !unlocked.isEmpty {
            let lockKeys = unlocked.map { ProjectionPlan.purchaseLockKey($0.first, .subscription, $0.second) }.sorted()
            _ = try await connection.pipeline(
                statements: [ProjectionStatements.lock],
                batch: [PostgresBatchItem(ProjectionStatements.lock, [try ProjectionPlan.jsonArray(lockKeys)])])
        }

        var states: [SubscriptionKey: SubscriptionState] = [:]
        var fromLog = linked.union(plan.refoldKeys.intersection(fresh.keys))
        let current = try await rows(Array(Set(fresh.keys).subtracting(fromLog)), on: connection)
        for (key, events) in fresh where !fromLog.contains(key) {
            if let row = current[key], let extended = SubscriptionFold.extend(row, with: events) {
                states[SubscriptionKey(provider: key.first, subscriptionID: key.second)] = extended
            } else {
                fromLog.insert(key)
            }
        }
        // A fold of the whole log wins over an extension of the same subscription.
        let batchKeys = Set(plan.subscriptionEvents.map(\.logged.dedupKey)).union(plan.moneyEvents.map(\.dedupKey))
        for state in try await refold(fromLog, batchKeys: batchKeys, unreadable: &unreadable, on: connection) {
            states[SubscriptionKey(provider: state.provider.rawValue, subscriptionID: state.subscriptionID)] = state
        }
        return states.keys.sorted().compactMap { states[$0] }
    }

    /// The new refunds and disputes of the batch whose transaction reference
    /// no logged charge, order or invoice carries (one query).
    func unlinkedMoneyBack(_ plan: ProjectionPlan, counts: [Int], on connection: PostgresConnection) async throws -> [String] {
        let fresh = plan.moneyEvents.filter { counts[$0.item] > 0 }
        guard !fresh.isEmpty else { return [] }
        let references = try ProjectionPlan.jsonArray(
            Set(fresh.map(\.reference)).map { [$0.first, $0.second] }.sorted { $0.lexicographicallyPrecedes($1) })
        let kinds = try ProjectionPlan.jsonArray(ProjectionPlan.moneyBackKinds.map(\.rawValue).sorted())
        let rows = try await connection.query(
            """
            SELECT r->>0, r->>1 FROM jsonb_array_elements(\(references)::jsonb) AS r
            WHERE NOT EXISTS (
                SELECT 1 FROM billing_events AS e
                WHERE e.provider = r->>0 AND e.transaction_reference = r->>1
                    AND e.kind NOT IN (SELECT jsonb_array_elements_text(\(kinds)::jsonb)))
            """)
        var unlinked = Set<ProjectionPlan.Pair>()
        for row in rows {
            let (provider, reference) = try row.decode((String, String).self)
            unlinked.insert(ProjectionPlan.Pair(provider, reference))
        }
        return fresh.filter { unlinked.contains($0.reference) }.map(\.dedupKey)
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

    /// Subscriptions the batch reaches only through the log (one query):
    /// those with a Paystack renewal's customer and plan, those a refunded
    /// or disputed transaction was paid for (through an invoice naming it,
    /// or a charge with the subscription's customer and plan), those whose
    /// first order was refunded, and those a new event links to a payment
    /// (order) whose refund was logged before the link. Candidates only: ``refold(_:batchKeys:unreadable:on:)``
    /// links each event by evidence.
    func linkedSubscriptions(_ plan: ProjectionPlan, on connection: PostgresConnection) async throws -> Set<ProjectionPlan.Pair> {
        guard !plan.renewalLinks.isEmpty || !plan.moneyEvents.isEmpty || !plan.refundedOrders.isEmpty || !plan.paymentLinks.isEmpty else {
            return []
        }
        func list(_ pairs: Set<ProjectionPlan.Pair>) throws -> String {
            try ProjectionPlan.jsonArray(pairs.map { [$0.first, $0.second] }.sorted { $0.lexicographicallyPrecedes($1) })
        }
        let links = try ProjectionPlan.jsonArray(
            plan.renewalLinks.map { [$0.provider, $0.customer, $0.plan] }.sorted { $0.lexicographicallyPrecedes($1) })
        let references = try list(plan.moneyReferences), orders = try list(plan.refundedOrders)
        let paymentLinks = try ProjectionPlan.jsonArray(
            plan.paymentLinks.map { [$0.provider, $0.subscriptionID, $0.orderID ?? "", $0.reference ?? ""] }
                .sorted { $0.lexicographicallyPrecedes($1) })
        let rows = try await connection.query(
            """
            WITH links AS (SELECT k->>0 AS provider, k->>1 AS customer_id, k->>2 AS plan_code FROM jsonb_array_elements(\(links)::jsonb) AS k),
                 refs AS (SELECT k->>0 AS provider, k->>1 AS reference FROM jsonb_array_elements(\(references)::jsonb) AS k),
                 refunded AS (SELECT k->>0 AS provider, k->>1 AS order_id FROM jsonb_array_elements(\(orders)::jsonb) AS k),
                 payment_links AS (
                    SELECT k->>0 AS provider, k->>1 AS subscription_id, NULLIF(k->>2, '') AS order_id, NULLIF(k->>3, '') AS reference
                    FROM jsonb_array_elements(\(paymentLinks)::jsonb) AS k),
                 charges AS (
                    SELECT c.provider, c.customer_id, c.plan_code FROM refs AS r
                    JOIN billing_events AS c ON c.provider = r.provider AND c.transaction_reference = r.reference
                    WHERE c.subscription_id IS NULL AND c.customer_id IS NOT NULL AND c.plan_code IS NOT NULL
                    UNION SELECT provider, customer_id, plan_code FROM links)
            SELECT e.provider, e.subscription_id FROM charges AS c
            JOIN billing_events AS e ON e.provider = c.provider AND e.customer_id = c.customer_id AND e.plan_code = c.plan_code
            WHERE e.subscription_id IS NOT NULL
            UNION
            SELECT e.provider, e.subscription_id FROM refs AS r
            JOIN billing_events AS e ON e.provider = r.provider AND e.transaction_reference = r.reference
            WHERE e.subscription_id IS NOT NULL
            UNION
            SELECT e.provider, e.subscription_id FROM refunded AS o
            JOIN billing_events AS e ON e.provider = o.provider AND e.order_id = o.order_id
            WHERE e.subscription_id IS NOT NULL
            UNION
            SELECT l.provider, l.subscription_id FROM payment_links AS l
            WHERE EXISTS (
                    SELECT 1 FROM billing_events AS m
                    WHERE m.provider = l.provider AND m.order_id = l.order_id AND m.subscription_id IS NULL AND m.kind = 'orderRefunded')
                OR EXISTS (
                    SELECT 1 FROM billing_events AS m
                    WHERE m.provider = l.provider AND m.transaction_reference = l.reference AND m.subscription_id IS NULL
                        AND m.kind IN ('refundProcessed', 'disputeCreated', 'disputeReminder', 'disputeResolved'))
            """)
        var result = Set<ProjectionPlan.Pair>()
        for row in rows {
            let (provider, subscriptionID) = try row.decode((String, String).self)
            result.insert(ProjectionPlan.Pair(provider, subscriptionID))
        }
        return result
    }

    /// Reads the log of every subscription in `keys` (one query) and folds
    /// each. A subscription's log is its own events, plus what evidence links
    /// to it:
    /// - a Paystack charge without a subscription code (a renewal, or the
    ///   charge that created it) when one of the subscription's invoices
    ///   names the charge's transaction, or else when the subscription is the
    ///   only one with the charge's customer, plan and card (authorization)
    ///   and no invoice names the charge for another: one charge, one
    ///   subscription, never every subscription of a shared customer;
    /// - the refunds and disputes of those charges and invoices (Paystack
    ///   names only the transaction);
    /// - a Lemon Squeezy `order_refunded` of the subscription's first order.
    ///
    /// A logged event that no longer reads back (written by another version,
    /// or damaged) is left out of the fold and reported in `unreadable`
    /// rather than failing it: failing would dead-letter every later event of
    /// that subscription. It stays in the log, so a version that reads it
    /// folds it again at the subscription's next event. An event of this
    /// batch (`batchKeys`) that does not read back still fails the batch, so
    /// that record alone is dead-lettered.
    func refold(
        _ subscriptionKeys: Set<ProjectionPlan.Pair>, batchKeys: Set<String>, unreadable: inout [String], on connection: PostgresConnection
    ) async throws -> [SubscriptionState] {
        guard !subscriptionKeys.isEmpty else { return [] }
        let keys = try ProjectionPlan.jsonArray(subscriptionKeys.map { [$0.first, $0.second] }.sorted { $0.lexicographicallyPrecedes($1) })
        let objectKinds = try ProjectionPlan.jsonArray(SubscriptionFold.subscriptionObjectKinds.map(\.rawValue).sorted())
        // The providers whose charges name no subscription (ProviderTraits.chargesLinkToSubscriptionsByCard).
        let cardLinked = try ProjectionPlan.jsonArray(Provider.having(\.chargesLinkToSubscriptionsByCard).map(\.rawValue))
        let rows = try await connection.query(
            """
            WITH keys AS (SELECT k->>0 AS provider, k->>1 AS subscription_id FROM jsonb_array_elements(\(keys)::jsonb) AS k),
                 object_kinds AS (SELECT jsonb_array_elements_text(\(objectKinds)::jsonb) AS kind),
                 card_linked AS (SELECT jsonb_array_elements_text(\(cardLinked)::jsonb) AS provider),
                 own AS (
                    SELECT k.provider, k.subscription_id, e.dedup_key, e.event, e.kind, e.transaction_reference, e.order_id,
                        e.customer_id, e.plan_code, e.authorization_code
                    FROM keys AS k JOIN billing_events AS e ON e.provider = k.provider AND e.subscription_id = k.subscription_id),
                 cards AS (
                    SELECT DISTINCT provider, subscription_id, customer_id, plan_code, authorization_code FROM own
                    WHERE provider IN (SELECT provider FROM card_linked) AND customer_id IS NOT NULL AND plan_code IS NOT NULL AND authorization_code IS NOT NULL
                        AND kind IN (SELECT kind FROM object_kinds)),
                 charges AS (
                    SELECT o.provider, o.subscription_id, c.dedup_key, c.event, c.transaction_reference FROM own AS o
                    JOIN billing_events AS c ON c.provider = o.provider AND c.transaction_reference = o.transaction_reference
                        AND c.subscription_id IS NULL AND c.kind IN ('paymentSucceeded', 'paymentRecovered')
                    WHERE o.provider IN (SELECT provider FROM card_linked)
                    UNION
                    SELECT d.provider, d.subscription_id, c.dedup_key, c.event, c.transaction_reference FROM cards AS d
                    JOIN billing_events AS c ON c.provider = d.provider AND c.subscription_id IS NULL
                        AND c.kind IN ('paymentSucceeded', 'paymentRecovered') AND c.customer_id = d.customer_id
                        AND c.plan_code = d.plan_code AND c.authorization_code = d.authorization_code
                    WHERE NOT EXISTS (
                            SELECT 1 FROM billing_events AS x
                            WHERE x.provider = d.provider AND x.customer_id = d.customer_id AND x.plan_code = d.plan_code
                                AND x.authorization_code = d.authorization_code AND x.subscription_id IS NOT NULL
                                AND x.subscription_id <> d.subscription_id AND x.kind IN (SELECT kind FROM object_kinds))
                        AND NOT EXISTS (
                            SELECT 1 FROM billing_events AS v
                            WHERE v.provider = d.provider AND v.transaction_reference = c.transaction_reference
                                AND v.subscription_id IS NOT NULL AND v.subscription_id <> d.subscription_id)),
                 paid AS (
                    SELECT provider, subscription_id, transaction_reference FROM charges WHERE transaction_reference IS NOT NULL
                    UNION
                    SELECT provider, subscription_id, transaction_reference FROM own WHERE transaction_reference IS NOT NULL),
                 money AS (
                    SELECT p.provider, p.subscription_id, m.dedup_key, m.event FROM paid AS p
                    JOIN billing_events AS m ON m.provider = p.provider AND m.transaction_reference = p.transaction_reference
                        AND m.subscription_id IS NULL
                        AND m.kind IN ('refundProcessed', 'disputeCreated', 'disputeReminder', 'disputeResolved')
                    UNION
                    SELECT o.provider, o.subscription_id, m.dedup_key, m.event
                    FROM (SELECT DISTINCT provider, subscription_id, order_id FROM own WHERE order_id IS NOT NULL) AS o
                    JOIN billing_events AS m ON m.provider = o.provider AND m.order_id = o.order_id AND m.subscription_id IS NULL
                        AND m.kind = 'orderRefunded')
            SELECT provider, subscription_id, dedup_key, event::text FROM own
            UNION SELECT provider, subscription_id, dedup_key, event::text FROM charges
            UNION SELECT provider, subscription_id, dedup_key, event::text FROM money
            """)
        var grouped: [SubscriptionKey: [SubscriptionFold.LoggedEvent]] = [:]
        for row in rows {
            let (provider, subscriptionID, dedupKey, json) = try row.decode((String, String, String, String).self)
            let event: BillingEvent
            do {
                event = try RecordCoding.decode(BillingEvent.self, from: Array(json.utf8))
            } catch  where !batchKeys.contains(dedupKey) {
                if !unreadable.contains(dedupKey) { unreadable.append(dedupKey) }
                continue
            }
            grouped[SubscriptionKey(provider: provider, subscriptionID: subscriptionID), default: []]
                .append(.init(dedupKey: dedupKey, event: event))
        }
        return grouped.keys.sorted().compactMap { key in
            guard let provider = Provider(rawValue: key.provider), let events = grouped[key] else { return nil }
            return SubscriptionFold.fold(provider: provider, subscriptionID: key.subscriptionID, events: events)
        }
    }

    /// The binds of one row of ``ProjectionStatements/subscriptions(_:)``.
    static func subscriptionRow(_ s: SubscriptionState) -> [PostgresBind] {
        let values: [any PostgresEncodable] = [
            s.provider.rawValue, s.subscriptionID, s.customerID, s.customerEmail, s.productID, s.variantID,
            s.planName, s.status, s.renewsAt, s.endsAt, s.trialEndsAt, s.cancelAtPeriodEnd, s.emailToken, s.cardBrand,
            s.cardLastFour, s.customerPortalURL, s.updatePaymentMethodURL, s.sourceUpdatedAt, s.lastEventKey,
            s.pauseMode, s.pauseResumesAt, s.testMode, s.orderID, s.authorizationCode, s.originalPurchaseAt,
            s.latestPurchaseAt, s.unsubscribeDetectedAt, s.billingIssueDetectedAt, s.refundedAt, s.portalURLsSeenAt,
            // distantPast (no provider time) is stored as NULL.
            s.foldPosition.flatMap { $0.at == .distantPast ? nil : $0.at }, s.foldPosition.map { Int32($0.rank) },
            s.partiallyRefundedAt, s.disputeOpenedAt, s.pendingVariantID, s.pendingChangeAt, s.startsAt,
        ]
        return values.map(\.postgresBind)
    }
}

/// A subscription's primary key, sortable so upserts run in a stable order.
struct SubscriptionKey: Hashable, Comparable {
    var provider: String
    var subscriptionID: String
    static func < (a: Self, b: Self) -> Bool { (a.provider, a.subscriptionID) < (b.provider, b.subscriptionID) }
}
