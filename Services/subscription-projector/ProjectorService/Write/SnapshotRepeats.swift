import Foundation
import BillingModel
import Postgres

/// Finds the reconciler snapshots of a batch that repeat the log, so that
/// the batch leaves them out entirely: no log row, and none of the upserts
/// their event would feed (customer, owner evidence, order, payment), each of
/// which would change nothing. An hourly sweep of unchanged objects then
/// costs one indexed lookup per object and writes nothing.
///
/// "Repeats" is the rule of ``ProjectionStatements/snapshotEvent(_:)``,
/// which still guards the insert of every snapshot that is not left out (a
/// repeat of another snapshot in the same batch, or of one a concurrent batch
/// committed). The check runs after the batch took its locks, so no batch of
/// the same purchase can log an event in between.
enum SnapshotRepeats {
    /// One snapshot to check, bound as one JSON array element.
    struct Candidate: Encodable {
        var dedupKey: String
        var provider: String
        var entity: String
        var id: String
        var eventName: String
        /// The normalised event as logged (``BillingEvent/encodedRecord()``).
        var event: String
        /// The ordering time in PostgreSQL's text form, as the insert binds it.
        var at: String?
    }

    /// The snapshot deliveries of `inputs` that name their object.
    static func candidates(_ inputs: [ProjectionInput]) -> [Candidate] {
        inputs.compactMap { input in
            guard case .webhook(let delivery) = input, delivery.dedupKey.hasPrefix("snapshot:") else { return nil }
            let e = delivery.event
            guard e.isFromSnapshot,
                let entity = ProviderSnapshot.Entity(rawValue: String(e.providerEventName.dropFirst(ProviderSnapshot.eventNamePrefix.count)))
            else { return nil }
            let id: String? =
                switch entity {
                case .subscription: e.subscriptionID
                case .order: e.orderID
                case .transaction: e.transactionReference
                }
            guard let id else { return nil }
            return Candidate(
                dedupKey: delivery.dedupKey, provider: e.provider.rawValue, entity: entity.rawValue, id: id,
                eventName: e.providerEventName, event: String(decoding: e.encodedRecord(), as: UTF8.self),
                at: e.orderingTimestamp?.postgresBind.text)
        }
    }

    /// The dedup keys of the candidates that repeat the log (one query).
    static func find(_ candidates: [Candidate], on connection: PostgresConnection) async throws -> Set<String> {
        guard !candidates.isEmpty else { return [] }
        let list = try ProjectionPlan.jsonArray(candidates)
        let between = ProjectionStatements.orderedBetween(earlier: "s", later: "c.at")
        // One branch per object column, so each can use its index.
        let rows = try await connection.query(
            """
            WITH c AS (
                SELECT x->>'dedupKey' AS dedup_key, x->>'provider' AS provider, x->>'entity' AS entity, x->>'id' AS id,
                    x->>'eventName' AS event_name, (x->>'event')::jsonb - 'orderingTimestamp' AS content,
                    COALESCE((x->>'at')::timestamptz, '-infinity') AS at
                FROM jsonb_array_elements(\(list)::jsonb) AS x)
            SELECT c.dedup_key FROM c WHERE c.entity = 'subscription' AND EXISTS (
                SELECT 1 FROM billing_events AS s
                WHERE s.provider = c.provider AND s.subscription_id = c.id AND s.event_name = c.event_name
                    AND (s.event - 'orderingTimestamp') = c.content AND COALESCE(s.ordering_ts, '-infinity') <= c.at
                    AND NOT EXISTS (
                        SELECT 1 FROM billing_events AS x WHERE x.provider = c.provider AND x.subscription_id = c.id
                            AND \(unescaped: between)))
            UNION ALL
            SELECT c.dedup_key FROM c WHERE c.entity = 'order' AND EXISTS (
                SELECT 1 FROM billing_events AS s
                WHERE s.provider = c.provider AND s.order_id = c.id AND s.event_name = c.event_name
                    AND (s.event - 'orderingTimestamp') = c.content AND COALESCE(s.ordering_ts, '-infinity') <= c.at
                    AND NOT EXISTS (
                        SELECT 1 FROM billing_events AS x WHERE x.provider = c.provider AND x.order_id = c.id
                            AND \(unescaped: between)))
            UNION ALL
            SELECT c.dedup_key FROM c WHERE c.entity = 'transaction' AND EXISTS (
                SELECT 1 FROM billing_events AS s
                WHERE s.provider = c.provider AND s.transaction_reference = c.id AND s.event_name = c.event_name
                    AND (s.event - 'orderingTimestamp') = c.content AND COALESCE(s.ordering_ts, '-infinity') <= c.at
                    AND NOT EXISTS (
                        SELECT 1 FROM billing_events AS x WHERE x.provider = c.provider AND x.transaction_reference = c.id
                            AND \(unescaped: between)))
            """)
        return Set(try rows.map { try $0.decode(column: 0, as: String.self) })
    }
}
