import Basics
import Foundation
import Postgres
import Projection
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
    /// `PROJECTOR_BATCH_WAIT` (default 100 ms).
    public var batchWait: Duration
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

    public init(
        databaseURL: String, ownership: OwnershipProof, groupID: String = "subscription-projector", batchSize: Int = 500,
        batchWait: Duration = .milliseconds(100), migrate: Bool = true, databaseConnections: Int = 4
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
        let ownershipKey = reader.required.secret("OWNERSHIP_PROOF_KEY")
        var configuration = ProjectorConfiguration(
            databaseURL: reader.required.string("DATABASE_URL"),
            ownership: OwnershipProof.configured(key: ownershipKey, reader: &reader),
            groupID: reader.string("KAFKA_GROUP_ID", default: "subscription-projector"),
            batchSize: reader.int("PROJECTOR_BATCH_SIZE", default: 500, in: 1...10_000),
            batchWait: reader.duration("PROJECTOR_BATCH_WAIT", default: .milliseconds(100)),
            migrate: reader.bool("PROJECTOR_MIGRATE", default: true),
            databaseConnections: reader.int("PROJECTOR_DB_CONNECTIONS", default: 4, in: 1...64))
        configuration.databaseLimits = PostgresSessionLimits.fromEnvironment(&reader, defaults: .batch)
        // As the CLI reads it: anything but `live` judges test purchases (the projector has no provider key to derive it from).
        configuration.entitlements = EntitlementResolver.fromEnvironment(&reader, testDeployment: reader.string("STOREFRONT_MODE") != "live")
        configuration.outboxRelay = EntitlementOutboxRelay.Settings.fromEnvironment(&reader)
        return configuration
    }
}
