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
    public static let projectorDBConnections = Setting(
        "PROJECTOR_DB_CONNECTIONS", default: "4", "PostgreSQL connections of the projector")
    public static let projectorMigrate = Setting(
        "PROJECTOR_MIGRATE", default: "true", "apply the projection's migrations at start-up")
}

extension SettingGroup {
    public static let projector = SettingGroup(
        "Subscription projector", [.projectorKafkaGroupID, .projectorBatchSize, .projectorBatchWait, .projectorDBConnections, .projectorMigrate])
}
