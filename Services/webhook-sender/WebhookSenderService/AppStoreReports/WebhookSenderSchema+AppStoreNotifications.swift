import Postgres

extension WebhookSenderSchema {
    /// Migration 6: the App Store notifications read from
    /// `storefront.apple.notifications.v1` (docs/app-store.md, "Notifications
    /// from Apple"), one row per `notificationUUID`, so Apple's retries and
    /// the topic's redeliveries are recorded once and acted on once.
    static let appStoreNotifications = """
        CREATE TABLE app_store_notifications (
            notification_uuid     text PRIMARY KEY,
            notification_type     text NOT NULL,
            subtype               text,
            external_purchase_id  text,
            environment           text,
            signed_at             timestamptz NOT NULL,
            -- NotificationFinding: what it said about the reports when it arrived.
            finding               text NOT NULL,
            -- The payload as Apple signed it.
            payload               text NOT NULL,
            received_at           timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX app_store_notifications_token ON app_store_notifications (external_purchase_id);
        GRANT SELECT, INSERT ON app_store_notifications TO storefront_webhook_sender;
        GRANT SELECT ON app_store_notifications TO storefront_admin;
        """
}
