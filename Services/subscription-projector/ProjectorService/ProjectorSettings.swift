import Timing
import ServiceSettings

// The projector's own settings (ProjectorConfiguration.fromEnvironment).

extension Setting {
    public static let projectorKafkaGroupID = Setting(
        "KAFKA_GROUP_ID", default: "subscription-projector", "consumer group of the projector's replicas")
    public static let projectorBatchSize = Setting(
        "PROJECTOR_BATCH_SIZE", default: "500", "most records applied in one transaction")
    public static let projectorBatchWait = Setting(
        "PROJECTOR_BATCH_WAIT", default: "0s", "longest a batch waits to fill (0: it takes what is waiting at once and waits only when nothing is)")
    public static let projectorFetchWait = Setting(
        "PROJECTOR_FETCH_WAIT", default: "10ms",
        "longest a fetch waits at the broker (fetch.wait.max.ms, 1ms-1s): Tansu answers every fetch only after it, so it bounds received -> visible")
    public static let projectorDBConnections = Setting(
        "PROJECTOR_DB_CONNECTIONS", default: "4", "PostgreSQL connections of the projector")
    public static let projectorMigrate = Setting(
        "PROJECTOR_MIGRATE", default: "true", "apply the projection's migrations at start-up")
    public static let projectorMode = Setting(
        "STOREFRONT_MODE", default: "test", "the checkout's mode: live judges entitlement changes as a live deployment does")
    public static let outboxBatchSize = Setting(
        "OUTBOX_BATCH_SIZE", default: "100", "entitlement changes the relay publishes per round")
    public static let outboxPollInterval = Setting(
        "OUTBOX_POLL_INTERVAL", default: "200ms", "the relay's wait once the outbox is empty")
    public static let outboxBackoffMax = Setting(
        "OUTBOX_BACKOFF_MAX", default: "30s", "the relay's longest wait after failed rounds (from 250ms, doubling)")
}

extension SettingGroup {
    public static let projector = SettingGroup(
        "Subscription projector",
        [.projectorKafkaGroupID, .projectorBatchSize, .projectorBatchWait, .projectorFetchWait, .projectorDBConnections, .projectorMigrate])
    public static let entitlementOutbox = SettingGroup(
        "Entitlement change outbox (projector)", [.projectorMode, .outboxBatchSize, .outboxPollInterval, .outboxBackoffMax])
}
