import BillingModel
import Postgres

extension ProjectionStatements {
    /// A reconciler snapshot enters the log only when it says something the
    /// log does not already say at that point.
    ///
    /// The reconciler fetches every object on every sweep, and a Paystack
    /// transaction has no update time, so without this the log (and every
    /// fold of a long-lived subscription) grew by one row per object per
    /// hour. A snapshot is skipped when an earlier-or-equal logged snapshot
    /// of the same object has the same content (the normalised event, its
    /// ordering time aside: a subscription fetch is ordered at the fetch) and
    /// no other event of that object may be ordered between the two
    /// (``orderedBetween(earlier:later:)``): then the
    /// fold, which applies events in order, would apply the same fields
    /// again to the same state. Anything that differs (a new status, a
    /// provider update time, a renewal date), or a change in between (the
    /// snapshot then confirms a return to an earlier state, A→B→A), is
    /// stored. Order independence: a skipped snapshot is one whose every
    /// field an earlier logged one already gave at an earlier-or-equal
    /// position; a late event that lands between them is, for Lemon Squeezy,
    /// visible in the snapshot's own `updated_at` (stored content differs),
    /// and for Paystack ordered by receipt on the snapshot's partition (it
    /// cannot land before a snapshot published after it).
    ///
    /// Same binds as ``event``; the object is named by `$6` (subscription),
    /// `$7` (order) or `$18` (transaction reference).
    static func snapshotEvent(_ entity: ProviderSnapshot.Entity) -> PostgresPreparedStatement {
        let (column, bind) =
            switch entity {
            case .subscription: ("subscription_id", "$6")
            case .order: ("order_id", "$7")
            case .transaction: ("transaction_reference", "$18")
            }
        return PostgresPreparedStatement(
            name: "projector_snapshot_event_\(entity.rawValue)_v3",
            sql: """
                INSERT INTO billing_events (\(eventColumns))
                SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23
                WHERE NOT EXISTS (
                    SELECT 1 FROM billing_events AS s
                    WHERE s.provider = $2 AND s.\(column) = \(bind) AND s.event_name = $3
                        AND (s.event - 'orderingTimestamp') = ($14::jsonb - 'orderingTimestamp')
                        AND COALESCE(s.ordering_ts, '-infinity') <= COALESCE($10, '-infinity')
                        AND NOT EXISTS (
                            SELECT 1 FROM billing_events AS x
                            WHERE x.provider = $2 AND x.\(column) = \(bind)
                                AND \(orderedBetween(earlier: "s", later: "COALESCE($10, '-infinity')"))))
                ON CONFLICT (dedup_key) DO NOTHING
                """, parameterTypes: event.parameterTypes)
    }

    /// SQL: event `x` may stand between the logged snapshot `earlier` and
    /// the instant `later` in the fold's order. A snapshot counts at the
    /// second its fetch started in, before that second's provider events
    /// (``Entitlements/SubscriptionFold``), so every event from that second
    /// on counts, whichever way a tie falls: a snapshot kept that could have
    /// been skipped costs a row, one skipped wrongly would lose a state.
    static func orderedBetween(earlier s: String, later: String) -> String {
        """
        COALESCE(x.ordering_ts, '-infinity') >= date_trunc('second', COALESCE(\(s).ordering_ts, '-infinity')) \
        AND x.dedup_key <> \(s).dedup_key AND COALESCE(x.ordering_ts, '-infinity') < \(later)
        """
    }

    static let snapshotSubscription = snapshotEvent(.subscription)
    static let snapshotOrder = snapshotEvent(.order)
    static let snapshotTransaction = snapshotEvent(.transaction)

    /// The insert for a logged delivery: a reconciler snapshot's (by its
    /// `snapshot:` dedup key and `storefront.snapshot.<entity>` name), or the plain one.
    static func eventInsert(dedupKey: String, eventName: String) -> PostgresPreparedStatement {
        guard dedupKey.hasPrefix("snapshot:"), eventName.hasPrefix(ProviderSnapshot.eventNamePrefix),
            let entity = ProviderSnapshot.Entity(rawValue: String(eventName.dropFirst(ProviderSnapshot.eventNamePrefix.count)))
        else { return event }
        switch entity {
        case .subscription: return snapshotSubscription
        case .order: return snapshotOrder
        case .transaction: return snapshotTransaction
        }
    }
}
