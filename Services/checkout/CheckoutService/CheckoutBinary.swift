import Timing
import ServiceSettings
import HTTPServer
import Kafka
import Postgres
import ProjectionStore
import Entitlements
import ProviderBudget
import ProviderConfiguration
import Retention
import ServiceRuntime
import Webhooks
import EntitlementSigning

/// What the `checkout` executable reads: `checkout --help-settings` prints it,
/// and its reader refuses anything else.
public enum CheckoutBinary {
    public static let settings = BinarySettings(
        "checkout",
        [
            .runtime, .httpServer, .checkout, .checkoutRetention, .retention, .webFirst, .appStore, .entitlementStream, .entitlementVerification,
            .appTokens,
            .ownershipProof,
            .postgresConnection, .postgresLimits,
            .entitlements,
            .kafka, .kafkaSecurity,
        ]
            + ProviderUses.api.settingGroups + [.providerBudget])
}
