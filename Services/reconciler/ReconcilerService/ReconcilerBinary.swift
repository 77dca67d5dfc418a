import Timing
import ServiceSettings
import HTTPServer
import Kafka
import Postgres
import ProviderBudget
import ProviderConfiguration
import ServiceRuntime

/// What the `reconciler` executable reads: `reconciler --help-settings`
/// prints it, and its reader refuses anything else. Its own group comes
/// first: there `DATABASE_URL` is optional.
public enum ReconcilerBinary {
    public static let settings = BinarySettings(
        "reconciler",
        [.runtime, .httpServer, .reconciler, .reconcilerProviderLimits, .postgresLimits, .kafka, .kafkaSecurity] + ProviderUses.api.settingGroups + [
            .providerBudget
        ])
}
