import Foundation
import Postgres
import Retention
import ServiceSettings

// What the projector prunes from the projection (docs/retention.md): only rows
// that grow with traffic and that nothing reads again. The event log, owners,
// purchases, payments and users are the business record and are never pruned.

extension Setting {
    public static let projectorRetentionPublishedOutbox = Setting(
        "PROJECTOR_RETENTION_PUBLISHED_OUTBOX", default: "7d",
        "how long an entitlement outbox row is kept after it was published (at least 1h); 0 = forever")
    public static let projectorRetentionUnpaidCheckouts = Setting(
        "PROJECTOR_RETENTION_UNPAID_CHECKOUTS", default: "400d",
        "how long a checkout nothing was bought through is kept after it closed (at least 31d, past the topics' replay window); 0 = forever")
    public static let projectorRetentionRefreshCommands = Setting(
        "PROJECTOR_RETENTION_REFRESH_COMMANDS", default: "30d", "how long a refresh_requested command's audit row is kept (at least 1h); 0 = forever")
}

extension SettingGroup {
    public static let projectorRetention = SettingGroup(
        "Retention (projector)", [.projectorRetentionPublishedOutbox, .projectorRetentionUnpaidCheckouts, .projectorRetentionRefreshCommands])
}

/// How long the projector keeps the rows it prunes, and the schedule.
public struct ProjectorRetention: Sendable {
    public var schedule = RetentionSchedule()
    /// Published outbox rows: the topic has them (for `KAFKA_TOPIC_RETENTION`);
    /// the relay reads only unpublished ones.
    public var publishedOutbox = RetentionPeriod.keep(.seconds(7 * 86_400))
    /// Checkouts never paid, counted from when they closed (`expires_at`, or
    /// a day after they opened). A checkout is read to attribute a purchase
    /// seen only through a fetch (``ProjectionStatements``' `ownerFromCheckout`,
    /// only while it was open) and by `storefront report --campaigns`
    /// ("checkouts opened"); the default keeps a year and a month of those
    /// figures, and the floor, 31 days, outlasts the topics' 30 days, so
    /// neither a replay nor a late purchase finds its checkout gone.
    public var unpaidCheckouts = RetentionPeriod.keep(.seconds(400 * 86_400))
    /// `refresh_requested` commands: an audit of reads that changed nothing.
    public var refreshCommands = RetentionPeriod.keep(.seconds(30 * 86_400))

    public init() {}

    public static func fromEnvironment(_ reader: inout ConfigReader) -> ProjectorRetention {
        var retention = ProjectorRetention()
        retention.schedule = RetentionSchedule.fromEnvironment(&reader)
        retention.publishedOutbox = reader.retention(.projectorRetentionPublishedOutbox, default: .seconds(7 * 86_400), minimum: .seconds(3600))
        retention.unpaidCheckouts = reader.retention(
            .projectorRetentionUnpaidCheckouts, default: .seconds(400 * 86_400), minimum: .seconds(31 * 86_400))
        retention.refreshCommands = reader.retention(.projectorRetentionRefreshCommands, default: .seconds(30 * 86_400), minimum: .seconds(3600))
        return retention
    }

    /// The rules. Each batch reads its rows through a partial index of
    /// projection migration 16 and skips rows a batch of the projector holds.
    public var rules: [RetentionRule] {
        [
            RetentionRule("entitlement_outbox", keep: publishedOutbox) { cutoff, limit in
                """
                DELETE FROM entitlement_outbox WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM entitlement_outbox WHERE published_at < \(cutoff) LIMIT \(limit) FOR UPDATE SKIP LOCKED))
                """
            },
            // Unpaid: not completed, no logged event names it, and no owner was
            // matched to it (a purchase seen only through a fetch completes no
            // checkout). The last two use the indexes on billing_events.checkout_id
            // and purchase_owners.app_user_id.
            RetentionRule("checkouts.unpaid", keep: unpaidCheckouts) { cutoff, limit in
                """
                DELETE FROM checkouts WHERE ctid = ANY(ARRAY(
                    SELECT c.ctid FROM checkouts AS c
                    WHERE c.completed_at IS NULL AND c.created_at < \(cutoff)
                        AND COALESCE(c.expires_at, c.created_at + interval '1 day') < \(cutoff)
                        AND NOT EXISTS (SELECT FROM billing_events AS e WHERE e.checkout_id = c.checkout_id)
                        AND NOT EXISTS (SELECT FROM purchase_owners AS o
                                        WHERE o.app_user_id = c.app_user_id AND o.evidence = 'checkout:' || c.checkout_id)
                    LIMIT \(limit) FOR UPDATE OF c SKIP LOCKED))
                """
            },
            // Insert-only rows nobody locks; the projector may not lock them (no UPDATE), so no SKIP LOCKED.
            RetentionRule("commands.refresh_requested", keep: refreshCommands) { cutoff, limit in
                """
                DELETE FROM commands WHERE command_id = ANY(ARRAY(
                    SELECT command_id FROM commands WHERE kind = 'refresh_requested' AND recorded_at < \(cutoff) LIMIT \(limit)))
                """
            },
        ]
    }
}
