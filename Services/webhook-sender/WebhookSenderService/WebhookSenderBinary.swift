import HTTPServer
import Kafka
import Postgres
import Retention
import ServiceRuntime
import ServiceSettings
import EntitlementSigning

/// What the `webhook-sender` executable reads: its `--help-settings`
/// prints it, and its reader refuses anything else.
public enum WebhookSenderBinary {
    public static let settings = BinarySettings(
        "webhook-sender",
        [
            .runtime, .httpServer, .webhookSender, .appStoreReports, .entitlementVerification, .webhookSenderRetention, .retention,
            .postgresConnection,
            .postgresLimits, .kafka, .kafkaSecurity,
        ])
}
