import Foundation
import AppStoreReports
import HTTPClient
import HTTPServer
import Kafka
import BillingModel
import Postgres
import Retention
import ServiceRuntime
import Telemetry
import EntitlementSigning

/// The webhook sender, assembled: the queue loop over
/// `storefront.entitlements.v1` and `storefront.purchase-events.v1` (one
/// consumer for both, ``DeliveryQueueService/topics``), the dispatcher,
/// health and metrics over HTTP.
public struct WebhookSenderApplication: ServiceApplication {
    public let pool: PostgresPool
    public let queueService: DeliveryQueueService
    public let dispatcher: DeliveryDispatcher
    /// Prunes delivered and dead deliveries (``DeliveryRetention``).
    public let retention: RetentionJob
    /// The reports to Apple; nil when no App Store Connect key is configured.
    public let appStoreReporter: AppStoreReporter?
    /// Operational routes only; readiness: `postgres` (SELECT 1), `kafka`
    /// (metadata of each topic it reads), `startup` (migrations done).
    public let shell: ApplicationShell

    /// HTTP first, the consumer, the loop that queues, then the dispatcher;
    /// stopped in reverse: attempts in flight finish and are recorded, the
    /// loop commits its batch, the consumer leaves the group, HTTP goes last.
    public var services: [any Service] {
        [shell.server, queueService.consumer, queueService, dispatcher, retention] + (appStoreReporter.map { [$0] } ?? [])
    }
}

/// Why the application cannot be built.
public struct WebhookSenderSetupError: Error, CustomStringConvertible {
    public var description: String
}

/// Builds the webhook sender.
/// - Parameters:
///   - verifier: the projector's public keys (`ENTITLEMENT_VERIFY_KEYS_FILE`): an
///     entitlement change they do not verify is never queued.
///   - transport: how requests leave (default: libcurl, ``CurlWebhookTransport``).
///   - targets: the check before each send (default: ``ResolvingTargetCheck``).
///   - appleSender: how reports reach Apple (default: ``AppStoreReportClient`` over libcurl, with the configured key).
/// - Throws: ``WebhookSenderSetupError`` for an unusable DATABASE_URL or Kafka settings.
public func buildWebhookSenderApplication(
    configuration: WebhookSenderConfiguration,
    verifier: EntitlementChangeVerifier,
    messaging: MessagingSettings,
    http: HTTPServerConfiguration = HTTPServerConfiguration(),
    transport: (any WebhookTransport)? = nil,
    targets: any TargetCheck = ResolvingTargetCheck(),
    appleSender: (any AppStoreReportSending)? = nil,
    logger: Logger,
    metrics: MetricsRegistry = MetricsRegistry()
) throws -> WebhookSenderApplication {
    var database: PostgresConfiguration
    do {
        database = try PostgresConfiguration(url: configuration.databaseURL)
        database.limits = configuration.databaseLimits
    } catch {
        throw WebhookSenderSetupError(description: "DATABASE_URL is not usable: \(error)")
    }
    // One connection per attempt in flight records its outcome, plus the queue loop's, the retention job's and the reporter's.
    let pool = PostgresPool(
        configuration: database, options: PostgresPoolConfiguration(maximumConnections: configuration.dispatcher.concurrency + 4))
    let consumer: KafkaConsumer
    let admin: KafkaAdmin
    do {
        consumer = try KafkaConsumer(
            topics: DeliveryQueueService.topics,
            configuration: KafkaConsumerConfiguration(client: messaging.client, groupID: configuration.groupID, maxBatchSize: configuration.batchSize)
        )
        admin = try KafkaAdmin(configuration: messaging.client)
    } catch {
        throw WebhookSenderSetupError(description: "Kafka client setup failed: \(error)")
    }
    let senderMetrics = WebhookSenderMetrics(registry: metrics)
    let deliveries = DeliveryStore(pool: pool), endpoints = EndpointStore(pool: pool)
    let queueService = DeliveryQueueService(
        consumer: consumer, deliveries: deliveries, endpoints: endpoints,
        changes: EntitlementChangeGate(verifier: verifier, registry: metrics, logger: logger), pool: pool, migrate: configuration.migrate,
        metrics: senderMetrics, logger: logger)
    let dispatcher = DeliveryDispatcher(
        queue: PostgresDeliveryQueue(deliveries: deliveries, endpoints: endpoints),
        transport: transport ?? CurlWebhookTransport(timeout: configuration.dispatcher.timeout), targets: targets, settings: configuration.dispatcher,
        metrics: senderMetrics, logger: logger, isReady: { queueService.isStarted })

    let appStoreReporter = configuration.appStoreReports.key.map { key -> AppStoreReporter in
        let http = HTTPClient()
        let sender =
            appleSender ?? AppStoreReportClient(key: key, baseURLOverride: configuration.appStoreReports.baseURL) { try await http.execute($0) }
        return AppStoreReporter(
            store: PostgresAppStoreReportStore(pool: pool), sender: sender, configuration: configuration.appStoreReports,
            metrics: AppStoreReporterMetrics(registry: metrics), logger: logger.with("component", "app-store-reports"),
            isReady: { queueService.isStarted })
    }
    let health = HealthChecks()
    health.register("postgres") { _ = try await pool.query("SELECT 1") }
    health.register("kafka") {
        for topic in DeliveryQueueService.topics { _ = try await admin.partitionCount(topic: topic, timeout: .seconds(2)) }
    }
    health.register("startup") {
        guard queueService.isStarted else { throw WebhookSenderSetupError(description: "migrations not done yet") }
    }
    return WebhookSenderApplication(
        pool: pool, queueService: queueService, dispatcher: dispatcher,
        retention: RetentionJob(
            pool: pool, rules: configuration.retention.rules, schedule: configuration.retention.schedule, registry: metrics, logger: logger),
        appStoreReporter: appStoreReporter,
        shell: ApplicationShell(http: http, health: health, metrics: metrics, logger: logger))
}
