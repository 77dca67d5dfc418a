import Foundation
import Catalog
import HTTPClient
import HTTPServer
import Kafka
import BillingModel
import Postgres
import ProviderBudget
import ServiceRuntime
import Telemetry

/// The reconciler, assembled: provider clients with their budgets, the
/// consumer loop, the scheduled sweep, health and metrics over HTTP.
public struct ReconcilerApplication: ServiceApplication {
    public let reconciler: Reconciler
    public let consumerService: ReconcilerConsumerService
    public let sweepService: SweepService
    public let providerHealth: ProviderHealth
    /// Operational routes only; readiness: `kafka` (metadata of the webhooks
    /// topic), `kafka-publish` (the snapshot producer's deliveries:
    /// ``KafkaProducer/checkPublishing(window:)``), `startup` (topics ensured), and `provider:<name>` per enabled
    /// provider (down while its latest call failed: an outage, a rate limit,
    /// a rejected key).
    public let shell: ApplicationShell
    let producer: KafkaProducer
    let pool: PostgresPool?
    /// `kafka_consumer_group_lag` of the reconciler's group.
    let lagMetrics: KafkaConsumerLagMetrics
    /// The revenue figures from the event log; nil without a database or
    /// with `RECONCILER_REVENUE_INTERVAL=0`.
    public let revenueGauges: RevenueGauges?

    /// HTTP first (probes answer during start-up), the producer, the
    /// consumer, the loop that reads it, then the sweep. Stopped in reverse:
    /// the sweep ends, the loop drains and commits, the consumer leaves the
    /// group, the producer flushes, HTTP goes last. The lag reader runs
    /// beside them; it only reads from the broker, as the revenue gauges
    /// read only PostgreSQL and the catalogs.
    public var services: [any Service] {
        [shell.server, producer, consumerService.consumer, consumerService, sweepService, lagMetrics] + (revenueGauges.map { [$0] } ?? [])
    }

    /// Releases the projection pool (after the services stopped).
    public func close() async {
        await pool?.close()
    }
}

/// Why the application cannot be built.
public struct ReconcilerSetupError: Error, CustomStringConvertible {
    public var description: String
}

/// Builds the reconciler.
/// - Parameters:
///   - configuration: group, coalescing, retries, sweep schedule, optional projection database.
///   - providers: the enabled providers and their request budgets.
///   - messaging: broker settings; topics are created at start-up.
///   - http: health and metrics server settings (default port 8085 in the executable).
/// - Throws: ``ReconcilerSetupError`` for an unusable DATABASE_URL or Kafka settings.
public func buildReconcilerApplication(
    configuration: ReconcilerConfiguration,
    providers: ReconcilerProviderSettings,
    messaging: MessagingSettings,
    http: HTTPServerConfiguration = HTTPServerConfiguration(),
    logger: Logger,
    metrics: MetricsRegistry = MetricsRegistry()
) throws -> ReconcilerApplication {
    var pool: PostgresPool?
    if let url = configuration.databaseURL {
        do {
            var database = try PostgresConfiguration(url: url)
            database.limits = configuration.databaseLimits
            // One more connection for the revenue read, which holds its
            // connection for the whole log, so the ledger never waits on it.
            let connections = configuration.revenueInterval > .zero ? 3 : 2
            pool = PostgresPool(configuration: database, options: PostgresPoolConfiguration(maximumConnections: connections))
        } catch {
            throw ReconcilerSetupError(description: "DATABASE_URL is not usable: \(error)")
        }
    }
    let topics = [Topics.webhooks, Topics.commands]
    let consumer: KafkaConsumer
    let producer: KafkaProducer
    let admin: KafkaAdmin
    let lagMetrics: KafkaConsumerLagMetrics
    do {
        // The reconciler's fetches wait their turn behind provider budgets and
        // delays of seconds, so its fetches may wait 500 ms at an idle broker
        // (librdkafka's default) rather than the 25 ms the projector needs:
        // a twentieth of the idle requests (docs/testing-and-benchmarks.md).
        consumer = try KafkaConsumer(
            topics: topics,
            configuration: KafkaConsumerConfiguration(
                client: messaging.client, groupID: configuration.groupID, maxBatchSize: configuration.batchSize,
                fetchMaxWait: .milliseconds(500)))
        producer = try KafkaProducer(configuration: messaging.producerConfiguration(declaring: Topics.all), logger: logger)
        admin = try KafkaAdmin(configuration: messaging.client)
        lagMetrics = try KafkaConsumerLagMetrics(
            configuration: messaging.client, groupID: configuration.groupID, topics: topics, registry: metrics, logger: logger)
    } catch {
        throw ReconcilerSetupError(description: "Kafka client setup failed: \(error)")
    }

    let reconcilerMetrics = ReconcilerMetrics(registry: metrics)
    let providerHealth = ProviderHealth()
    // Fetches and sweeps use separate clients so the shared ledger can tell
    // them apart: a sweep yields to targeted fetches, both to the checkout.
    let httpClient = HTTPClient()
    let ledger = pool.map { PostgresProviderLedgerStore(pool: $0) as any ProviderLedgerStore }
    let fallback = providers.fallbackBudgets()
    let source = providers.makeSource(
        httpClient: httpClient, metrics: reconcilerMetrics, requestClass: .targeted, ledger: ledger, fallback: fallback, logger: logger)
    let sweepSource = providers.makeSource(
        httpClient: httpClient, metrics: reconcilerMetrics, requestClass: .sweep, ledger: ledger, fallback: fallback, logger: logger)
    let publisher = KafkaSnapshotPublisher(producer: producer)
    let tracker = BatchTracker()
    let reconciler = Reconciler(
        source: source, publisher: publisher, metrics: reconcilerMetrics, health: providerHealth, configuration: configuration,
        logger: logger, settle: { tracker.settle($0) })
    let consumerService = ReconcilerConsumerService(
        consumer: consumer, reconciler: reconciler, tracker: tracker, configuration: configuration, messaging: messaging,
        metrics: reconcilerMetrics, logger: logger)
    let sweeper = Sweeper(
        source: sweepSource, publisher: publisher, statuses: pool.map(PostgresProjectionStatusReader.init(pool:)),
        health: providerHealth, logger: logger)
    let sweepService = SweepService(
        sweeper: sweeper, providers: source.providers, configuration: configuration, metrics: reconcilerMetrics, logger: logger,
        isLeader: { consumerService.isSweepLeader })

    // Revenue reads the log with the drift reads' pool; its catalog fetches
    // are background work, paced as sweeps.
    let revenueGauges = pool.flatMap { pool -> RevenueGauges? in
        guard configuration.revenueInterval > .zero else { return nil }
        let catalog = CatalogCache(sources: sweepSource.catalogSources, logger: logger)
        return RevenueGauges(
            source: LogRevenueFigures(pool: pool, catalog: catalog), registry: metrics, logger: logger, interval: configuration.revenueInterval)
    }

    let health = HealthChecks()
    health.register("kafka") { _ = try await admin.partitionCount(topic: Topics.webhooks, timeout: .seconds(2)) }
    // Snapshots that cannot be published stall every reconcile; say so.
    health.register("kafka-publish") { [window = messaging.publishReadinessWindow] in try producer.checkPublishing(window: window) }
    health.register("startup") {
        guard consumerService.isStarted else { throw ReconcilerSetupError(description: "topics not ensured yet") }
    }
    for provider in source.providers {
        health.register("provider:\(provider.rawValue)") { try providerHealth.check(provider) }
    }
    return ReconcilerApplication(
        reconciler: reconciler, consumerService: consumerService, sweepService: sweepService, providerHealth: providerHealth,
        shell: ApplicationShell(http: http, health: health, metrics: metrics, logger: logger), producer: producer, pool: pool,
        lagMetrics: lagMetrics, revenueGauges: revenueGauges)
}
