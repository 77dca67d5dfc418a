import Timing
import ServiceSettings
import HTTPServer
import Kafka
import Postgres
import ProjectionStore
import Retention
import Entitlements
import ServiceRuntime
import Webhooks
import EntitlementSigning

/// What the `subscription-projector` executable reads: its `--help-settings`
/// prints it, and its reader refuses anything else.
public enum ProjectorBinary {
    public static let settings = BinarySettings(
        "subscription-projector",
        [
            .runtime, .httpServer, .projector, .entitlementOutbox, .entitlementSigning, .projectorRetention, .retention, .ownershipProof,
            .postgresConnection, .postgresLimits, .entitlements, .kafka,
            .kafkaSecurity,
        ])
}
