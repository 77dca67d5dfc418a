import ServiceSettings
import Foundation
import Postgres
import ServiceRuntime

/// The webhook sender's own settings, from the environment (README, "Webhooks out").
public struct WebhookSenderConfiguration: Sendable {
    /// `DATABASE_URL` (required): endpoints and the delivery queue.
    public var databaseURL: String
    /// `KAFKA_GROUP_ID` (default `webhook-sender`).
    public var groupID = "webhook-sender"
    /// `WEBHOOK_SENDER_BATCH_SIZE` (default 500, 1...10 000): records queued per transaction.
    public var batchSize = 500
    /// `WEBHOOK_SENDER_MIGRATE` (default true): apply the sender's migrations at start-up.
    public var migrate = true
    /// The dispatcher's bounds and schedule (`WEBHOOK_SENDER_CONCURRENCY`,
    /// `WEBHOOK_SENDER_ENDPOINT_CONCURRENCY`, `WEBHOOK_SENDER_POLL_INTERVAL`, `WEBHOOK_SENDER_TIMEOUT`,
    /// `WEBHOOK_SENDER_RETRY_SCHEDULE`, `WEBHOOK_SENDER_DISABLE_AFTER`).
    public var dispatcher = DeliveryDispatcher.Settings()
    /// `DATABASE_*` limits (default ``PostgresSessionLimits/batch``).
    public var databaseLimits: PostgresSessionLimits = .batch
    /// `WEBHOOK_SENDER_RETENTION_*` and `RETENTION_*`: what is pruned, and when.
    public var retention = DeliveryRetention()
    /// `APP_STORE_CONNECT_*`, `APP_STORE_BUNDLE_ID`, `APP_STORE_REPORTS_*`: the reports to Apple, off without a key.
    public var appStoreReports = AppStoreReporterConfiguration()

    public init(databaseURL: String) {
        self.databaseURL = databaseURL
    }

    /// Reads the settings; problems are collected in `reader`.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> WebhookSenderConfiguration {
        var configuration = WebhookSenderConfiguration(databaseURL: reader.required.string(.databaseURL))
        configuration.groupID = reader.string(.webhookSenderKafkaGroupID, default: "webhook-sender")
        configuration.batchSize = reader.int(.webhookSenderBatchSize, default: 500, in: 1...10_000)
        configuration.migrate = reader.bool(.webhookSenderMigrate, default: true)
        configuration.dispatcher.concurrency = reader.int(.webhookSenderConcurrency, default: 8, in: 1...256)
        configuration.dispatcher.endpointConcurrency = reader.int(.webhookSenderEndpointConcurrency, default: 2, in: 1...64)
        configuration.dispatcher.disableAfter = reader.duration(.webhookSenderDisableAfter, default: .seconds(120 * 3600))
        configuration.dispatcher.pollInterval = reader.duration(.webhookSenderPollInterval, default: .milliseconds(500))
        configuration.dispatcher.timeout = reader.duration(.webhookSenderTimeout, default: .seconds(10))
        configuration.dispatcher.schedule = reader.value(.webhookSenderRetrySchedule, RetrySchedule.parser, default: .default)
        configuration.databaseLimits = PostgresSessionLimits.fromEnvironment(&reader, defaults: .batch)
        configuration.retention = DeliveryRetention.fromEnvironment(&reader)
        configuration.appStoreReports = AppStoreReporterConfiguration.fromEnvironment(&reader)
        return configuration
    }
}
