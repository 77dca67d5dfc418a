import AppStoreNotifications
import BillingModel
import Foundation
import Kafka
import Telemetry

/// Reads the records of `storefront.apple.notifications.v1` (the payload
/// Apple signed, verified by the receiver), keeps them through
/// ``AppStoreNotificationStore`` and says what each one found: a metric per
/// finding, and a log line whose level says whether someone must act.
public struct AppStoreNotificationRecorder: Sendable {
    let store: AppStoreNotificationStore
    let logger: Logger
    let found: [NotificationFinding: Counter]
    let unreadable: Counter

    public init(store: AppStoreNotificationStore, registry: MetricsRegistry, logger: Logger) {
        self.store = store
        self.logger = logger
        var found: [NotificationFinding: Counter] = [:]
        for finding in NotificationFinding.allCases {
            found[finding] = registry.counter(
                "app_store_notifications_total", help: "App Store notifications recorded by the webhook-sender, by what they found.",
                labels: ["finding": finding.rawValue])
        }
        self.found = found
        unreadable = registry.counter(
            "app_store_notifications_unreadable_total", help: "Records of storefront.apple.notifications.v1 that did not decode (passed over).")
    }

    /// The notifications among `records` (other topics' records are left out; unreadable ones counted and logged).
    func notifications(in records: [KafkaConsumerRecord]) -> [AppStoreNotification] {
        records.filter { $0.topic == Topics.appleNotifications }.compactMap { record in
            guard let value = record.value, let notification = try? AppStoreNotification(payload: value) else {
                unreadable.increment()
                logger.error(
                    "App Store notification record not readable; passed over",
                    metadata: ["kafka.partition": String(record.partition), "kafka.offset": String(record.offset)])
                return nil
            }
            return notification
        }
    }

    /// Records `notifications` and reports what the new ones found.
    /// - Throws: the store's error (the caller retries the batch).
    func record(_ notifications: [AppStoreNotification], now: Date) async throws {
        for (notification, finding) in try await store.record(notifications, now: now) {
            found[finding]?.increment()
            let metadata = [
                "apple.notification_uuid": notification.notificationUUID, "apple.notification_type": notification.notificationType,
                "apple.subtype": notification.subtype ?? "", "app_store.token": notification.externalPurchaseToken?.externalPurchaseId ?? "",
                "app_store.finding": finding.rawValue,
            ]
            switch finding {
            case .unknownToken:
                logger.error("Apple reports a token no checkout carried; reporting it UNRECOGNIZED_TOKEN", metadata: metadata)
            case .refused:
                logger.error("Apple reports a token whose report it refused; the dead line needs an operator", metadata: metadata)
            case .retried, .notYetReported:
                logger.warning("Apple reports a token not reported yet", metadata: metadata)
            case .recorded, .alreadyAccepted:
                logger.info("App Store notification recorded", metadata: metadata)
            }
        }
    }
}
