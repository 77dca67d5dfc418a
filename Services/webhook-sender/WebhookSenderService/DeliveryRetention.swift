import Foundation
import Postgres
import Retention
import ServiceSettings

// What the webhook sender prunes from webhook_deliveries (docs/retention.md).
// Pending rows are the queue and are never pruned; a row's primary key is also
// the guard that a record read again from the topic queues nothing, so
// delivered rows outlast the topics' 30 days by default.

extension Setting {
    public static let webhookSenderRetentionDelivered = Setting(
        "WEBHOOK_SENDER_RETENTION_DELIVERED", default: "35d",
        "how long a delivered webhook is kept after its delivery (at least 1h; keep it above KAFKA_TOPIC_RETENTION); 0 = forever")
    public static let webhookSenderRetentionDead = Setting(
        "WEBHOOK_SENDER_RETENTION_DEAD", default: "90d",
        "how long a webhook given up on is kept after its last attempt, for storefront endpoints replay (at least 1d); 0 = forever")
}

extension SettingGroup {
    public static let webhookSenderRetention = SettingGroup(
        "Retention (webhook-sender)", [.webhookSenderRetentionDelivered, .webhookSenderRetentionDead])
}

/// How long delivered and dead deliveries are kept, and the schedule.
public struct DeliveryRetention: Sendable {
    public var schedule = RetentionSchedule()
    public var delivered = RetentionPeriod.keep(.seconds(35 * 86_400))
    /// Counted from the last attempt (`next_attempt_at` keeps its time when
    /// a delivery dies); `storefront endpoints replay` can requeue it until then.
    public var dead = RetentionPeriod.keep(.seconds(90 * 86_400))

    public init() {}

    public static func fromEnvironment(_ reader: inout ConfigReader) -> DeliveryRetention {
        var retention = DeliveryRetention()
        retention.schedule = RetentionSchedule.fromEnvironment(&reader)
        retention.delivered = reader.retention(.webhookSenderRetentionDelivered, default: .seconds(35 * 86_400), minimum: .seconds(3600))
        retention.dead = reader.retention(.webhookSenderRetentionDead, default: .seconds(90 * 86_400), minimum: .seconds(86_400))
        return retention
    }

    /// The rules, each through a partial index of the sender's migration 2;
    /// a row a dispatcher holds is skipped (it is being replayed or recorded).
    public var rules: [RetentionRule] {
        [
            RetentionRule("webhook_deliveries.delivered", keep: delivered) { cutoff, limit in
                """
                DELETE FROM webhook_deliveries WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM webhook_deliveries WHERE state = 'delivered' AND delivered_at < \(cutoff)
                    LIMIT \(limit) FOR UPDATE SKIP LOCKED))
                """
            },
            RetentionRule("webhook_deliveries.dead", keep: dead) { cutoff, limit in
                """
                DELETE FROM webhook_deliveries WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM webhook_deliveries WHERE state = 'dead' AND next_attempt_at < \(cutoff)
                    LIMIT \(limit) FOR UPDATE SKIP LOCKED))
                """
            },
        ]
    }
}
