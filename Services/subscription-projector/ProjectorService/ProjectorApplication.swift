import Foundation
import HTTPServer
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import Retention
import Entitlements
import ServiceRuntime
import Telemetry
import EntitlementSigning

/// The subscription projector, assembled: database pool, consumer loop,
/// health and metrics over HTTP.
public struct ProjectorApplication: ServiceApplication {
    public let pool: PostgresPool
    public let consumerService: ProjectorConsumerService
    public let projector: Projector
    /// Where dead letters go.
    let deadLetterProducer: KafkaProducer
    /// `kafka_consumer_group_lag` of the projector's group.
    let lagMetrics: KafkaConsumerLagMetrics
    /// `storefront_subscriptions` and its billing-issue twin, from the projection.
    let subscriptionGauges: SubscriptionGauges
    /// Publishes the entitlement outbox with the dead-letter producer (idempotent, `acks=all`).
    let outboxRelay: EntitlementOutboxRelay
    /// Prunes published outbox rows, unpaid checkouts and refresh commands (``ProjectorRetention``).
    let retention: RetentionJob
    /// Operational routes only; readiness: `postgres` (SELECT 1), `kafka`
    /// (metadata request), `kafka-publish` (the dead-letter producer's
    /// deliveries: ``KafkaProducer/checkPublishing(window:)``), `startup`
    /// (migrations and topics done).
    public let shell: ApplicationShell

    /// HTTP first (so probes answer during start-up), the dead-letter
    /// producer, the consumer, then the loop that reads it; the outbox relay
    /// last, so it stops first and its producer is still open while it drains. Stopped in
    /// reverse: the loop finishes and commits its batch, the consumer leaves
    /// the group, the producer flushes, HTTP goes last. The lag reader and
    /// the subscription gauges run beside them; they only read. Retention
    /// runs beside them too, on rows none of them reads.
    public var services: [any Service] {
        [shell.server, deadLetterProducer, consumerService.consumer, consumerService, lagMetrics, subscriptionGauges, retention, outboxRelay]
    }
}

/// Why the application cannot be built.
public struct ProjectorSetupError: Error, CustomStringConvertible {
    public var description: String
}

/// Builds the projector.
/// - Parameters:
///   - configuration: database, group, batching, migrations.
///   - signer: signs every entitlement change the outbox relay publishes
///     (`ENTITLEMENT_SIGNING_KEY`, held by the projector only).
///   - messaging: broker settings; topics are created at start-up.
///   - http: health and metrics server settings (default port 8084 in the executable).
/// - Throws: ``ProjectorSetupError`` for an unusable DATABASE_URL or Kafka settings.
public func buildProjectorApplication(
    configuration: ProjectorConfiguration,
    signer: EntitlementChangeSigner,
    messaging: MessagingSettings,
    http: HTTPServerConfiguration = HTTPServerConfiguration(),
    logger: Logger,
    metrics: MetricsRegistry = MetricsRegistry()
) throws -> ProjectorApplication {
    var database: PostgresConfiguration
    do {
        database = try PostgresConfiguration(url: configuration.databaseURL)
        database.limits = configuration.databaseLimits
    } catch {
        throw ProjectorSetupError(description: "DATABASE_URL is not usable: \(error)")
    }
    let pool = PostgresPool(configuration: database, options: PostgresPoolConfiguration(maximumConnections: configuration.databaseConnections))
    let topics = [Topics.webhooks, Topics.checkouts, Topics.commands, Topics.snapshots]
    let consumer: KafkaConsumer
    let producer: KafkaProducer
    let admin: KafkaAdmin
    let lagMetrics: KafkaConsumerLagMetrics
    do {
        consumer = try KafkaConsumer(
            topics: topics,
            configuration: KafkaConsumerConfiguration(
                client: messaging.client, groupID: configuration.groupID,
                maxBatchSize: configuration.batchSize, maxBatchWait: configuration.batchWait,
                fetchMaxWait: configuration.fetchWait))
        producer = try KafkaProducer(configuration: messaging.producerConfiguration(declaring: Topics.all), logger: logger)
        admin = try KafkaAdmin(configuration: messaging.client)
        lagMetrics = try KafkaConsumerLagMetrics(
            configuration: messaging.client, groupID: configuration.groupID, topics: topics, registry: metrics, logger: logger)
    } catch {
        throw ProjectorSetupError(description: "Kafka client setup failed: \(error)")
    }
    let projectorMetrics = ProjectorMetrics(registry: metrics)
    let projector = Projector(
        writer: ProjectionWriter(pool: pool, outbox: EntitlementOutbox(resolver: configuration.entitlements)),
        deadLetters: KafkaDeadLetterSink(producer: producer, maxMessageBytes: messaging.client.maxMessageBytes),
        metrics: projectorMetrics, ownership: configuration.ownership, consumerName: configuration.groupID, logger: logger)
    let consumerService = ProjectorConsumerService(
        consumer: consumer, projector: projector, pool: pool, messaging: messaging, migrate: configuration.migrate,
        logger: logger)

    let health = HealthChecks()
    health.register("postgres") { _ = try await pool.query("SELECT 1") }
    health.register("kafka") { _ = try await admin.partitionCount(topic: Topics.webhooks, timeout: .seconds(2)) }
    // A dead letter that cannot be published holds its batch (and the partition) back.
    health.register("kafka-publish") { [window = messaging.publishReadinessWindow] in try producer.checkPublishing(window: window) }
    health.register("startup") {
        guard consumerService.isStarted else { throw ProjectorSetupError(description: "migrations or topic creation not done yet") }
    }
    return ProjectorApplication(
        pool: pool, consumerService: consumerService, projector: projector, deadLetterProducer: producer, lagMetrics: lagMetrics,
        subscriptionGauges: SubscriptionGauges(source: PostgresSubscriptionCounts(pool: pool), registry: metrics, logger: logger),
        outboxRelay: EntitlementOutboxRelay(
            pool: pool, settings: configuration.outboxRelay, signer: signer, registry: metrics, logger: logger,
            isReady: { consumerService.isStarted }, publish: { messages in await producer.sendInOrderAndAwait(messages) }),
        retention: RetentionJob(
            pool: pool, rules: configuration.retention.rules, schedule: configuration.retention.schedule, registry: metrics, logger: logger),
        shell: ApplicationShell(http: http, health: health, metrics: metrics, logger: logger))
}
