import Timing
import ServiceSettings
import Kafka
import Postgres
import ProjectionStore
import Entitlements
import ProviderBudget
import ProviderConfiguration
import ReconcilerService
import ServiceRuntime

/// What each command of the `storefront` tool reads, one list per command
/// (compose runs `storefront migrate` and `storefront status` as services of
/// their own, each given only its command's settings). `storefront
/// --help-settings` prints them all; each command's reader refuses the rest.
public enum StorefrontCLIBinary {
    public static let migrate = BinarySettings(
        "storefront migrate", [.runtime, .postgresConnection, .postgresLimits, .migrateBroker, .kafka, .kafkaSecurity])
    public static let devToken = BinarySettings("storefront dev-token", [.runtime, .devToken])
    public static let status = BinarySettings("storefront status", [.runtime, .postgresConnection, .statusMode, .entitlements, .postgresLimits])
    public static let report = BinarySettings("storefront report", [.runtime, .postgresConnection, .postgresLimits])
    public static let endpoints = BinarySettings("storefront endpoints", [.runtime, .adminDatabase, .endpointsMode, .postgresLimits])
    public static let apiKeys = BinarySettings("storefront api-keys", [.runtime, .adminDatabase, .apiKeysMode, .postgresLimits])
    public static let grants = BinarySettings("storefront grant", [.runtime, .serverAPI])
    public static let deadLetter = BinarySettings("storefront deadletter", [.runtime, .kafka, .kafkaSecurity])
    public static let reconcile = BinarySettings(
        "storefront reconcile",
        [.runtime, .reconcileDatabase, .reconcilerProviderLimits, .kafka, .kafkaSecurity] + ProviderUses.api.settingGroups + [.providerBudget])

    public static let refund = BinarySettings("storefront refund", [.runtime, .refundAPI])

    /// Every command's list, in the order `storefront help` shows the commands.
    public static let all = [migrate, devToken, status, report, endpoints, apiKeys, grants, deadLetter, reconcile, refund]
}
