import ServiceSettings
import Foundation
import Postgres
import Entitlements
import ServiceRuntime
import Webhooks

/// The projector's own settings, from the environment.
public struct ProjectorConfiguration: Sendable {
    /// `DATABASE_URL` (required): the projection database.
    public var databaseURL: String
    /// `KAFKA_GROUP_ID` (default `subscription-projector`).
    public var groupID: String
    /// `PROJECTOR_BATCH_SIZE` (default 500, 1...10 000).
    public var batchSize: Int
    /// `PROJECTOR_BATCH_WAIT` (default 0): how long a batch may wait to fill.
    /// None by default: a batch takes whatever is waiting at once and waits
    /// only when nothing is, so its size follows the load (self-clocking: the
    /// records that arrived while one batch was written make the next).
    public var batchWait: Duration
    /// `PROJECTOR_FETCH_WAIT` (default 10 ms, 1 ms...1 s): the consumer's
    /// `fetch.wait.max.ms`. Tansu 0.6 reads the log when a fetch arrives and
    /// again when this wait is over, and answers only then, even when the
    /// first read found records; so a record waits up to this long at the
    /// broker, the largest share of received → visible at low load. Shorter
    /// costs broker CPU on an idle stack (two reads of every partition per
    /// wait); a broker that answers as soon as records arrive (Kafka) is
    /// served as well by librdkafka's 500 ms.
    public var fetchWait: Duration = ProjectorConfiguration.defaultFetchWait
    /// The default of ``fetchWait``.
    public static let defaultFetchWait = Duration.milliseconds(10)
    /// `PROJECTOR_MIGRATE` (default true): apply schema migrations at start-up.
    public var migrate: Bool
    /// `PROJECTOR_DB_CONNECTIONS` (default 4).
    public var databaseConnections: Int
    /// `DATABASE_STATEMENT_TIMEOUT` and the other `DATABASE_*` limits
    /// (default ``PostgresSessionLimits/batch``: a batch may take a while, a
    /// dead server may not stall the projector).
    public var databaseLimits: PostgresSessionLimits = .batch
    /// `OWNERSHIP_PROOF_KEY` or `OWNERSHIP_PROOF_KEY_FILE` (required, at least
    /// 32 bytes; the checkout's key): checks the ownership claims in webhooks
    /// and snapshots.
    public var ownership: OwnershipProof
    /// `ENTITLEMENTS_FILE`, `ENTITLEMENT_*` and `STOREFRONT_MODE` (the
    /// checkout's values): how the outbox computes each user's entitlements,
    /// so the changes it announces are what `GET /api/entitlements` answers.
    public var entitlements = EntitlementResolver(policy: AccessPolicy(testDeployment: true))
    /// `OUTBOX_BATCH_SIZE`, `OUTBOX_POLL_INTERVAL`, `OUTBOX_BACKOFF_MAX`: the entitlement outbox's relay.
    public var outboxRelay = EntitlementOutboxRelay.Settings()
    /// `PROJECTOR_RETENTION_*` and `RETENTION_*`: what the projector prunes, and when.
    public var retention = ProjectorRetention()

    public init(
        databaseURL: String, ownership: OwnershipProof, groupID: String = "subscription-projector", batchSize: Int = 500,
        batchWait: Duration = .zero, migrate: Bool = true, databaseConnections: Int = 4
    ) {
        self.databaseURL = databaseURL
        self.ownership = ownership
        self.groupID = groupID
        self.batchSize = batchSize
        self.batchWait = batchWait
        self.migrate = migrate
        self.databaseConnections = databaseConnections
    }

    /// Reads the settings; problems are collected in `reader`.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> ProjectorConfiguration {
        let ownershipKey = reader.required.secret(.ownershipProofKey)
        var configuration = ProjectorConfiguration(
            databaseURL: reader.required.string(.databaseURL),
            ownership: OwnershipProof.configured(key: ownershipKey, reader: &reader),
            groupID: reader.string(.projectorKafkaGroupID, default: "subscription-projector"),
            batchSize: reader.int(.projectorBatchSize, default: 500, in: 1...10_000),
            batchWait: reader.duration(.projectorBatchWait, default: .zero),
            migrate: reader.bool(.projectorMigrate, default: true),
            databaseConnections: reader.int(.projectorDBConnections, default: 4, in: 1...64))
        configuration.fetchWait = reader.duration(.projectorFetchWait, default: defaultFetchWait)
        if !(Duration.milliseconds(1)...Duration.seconds(1)).contains(configuration.fetchWait) {
            reader.report(.projectorFetchWait, "must be between 1ms and 1s")
        }
        configuration.databaseLimits = PostgresSessionLimits.fromEnvironment(&reader, defaults: .batch)
        configuration.retention = ProjectorRetention.fromEnvironment(&reader)
        // As the CLI reads it: anything but `live` judges test purchases (the projector has no provider key to derive it from).
        configuration.entitlements = EntitlementResolver.fromEnvironment(&reader, testDeployment: reader.string(.projectorMode) != "live")
        configuration.outboxRelay = EntitlementOutboxRelay.Settings.fromEnvironment(&reader)
        return configuration
    }
}
