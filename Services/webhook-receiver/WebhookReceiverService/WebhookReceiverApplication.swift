import Foundation
import HTTPServer
import Kafka
import BillingModel
import ProviderConfiguration
import ServiceRuntime
import Telemetry
import Webhooks

/// Why the webhook receiver cannot be built.
public enum WebhookReceiverSetupError: Error, Sendable, CustomStringConvertible {
    /// No verifier is configured, so every webhook would be refused.
    case noVerifiers
    /// Two verifiers claim the same provider.
    case duplicateProvider(Provider)
    /// The Kafka producer or admin client could not be created.
    case kafka(String)

    public var description: String {
        switch self {
        case .noVerifiers:
            "no webhook verifier is configured: enable at least one payment provider (\(Provider.displayNames))"
        case .duplicateProvider(let provider):
            "more than one webhook verifier for provider \(provider.rawValue)"
        case .kafka(let reason):
            "cannot create the Kafka clients: \(reason)"
        }
    }
}

/// The webhook receiver, assembled: verifiers, publisher, routes and server.
///
/// The executable and the live tests build it over Kafka through
/// ``buildWebhookReceiverApplication(verifiers:messaging:configuration:http:logger:metrics:now:)``;
/// router tests build it over a fake publisher through
/// ``buildWebhookReceiverApplication(verifiers:publisher:brokerCheck:configuration:http:logger:metrics:now:)``
/// and call ``ServiceApplication/respond(to:logger:)``, with no socket and no broker.
public struct WebhookReceiverApplication: ServiceApplication {
    /// Where verified webhooks are stored before the 200.
    public let publisher: any WebhookPublishing
    /// Webhook and operational routes; readiness `kafka` (metadata of
    /// `storefront.webhooks.v1`, and the producer's own deliveries:
    /// ``KafkaProducer/checkPublishing(window:)``) when built over Kafka; `webhooks_*` and the
    /// HTTP metrics.
    public let shell: ApplicationShell
    /// Creates the topics at start-up, retrying while the broker is down
    /// (built over Kafka only).
    public let topicSetup: TopicSetupService?
    /// What runs before HTTP, in start order (over Kafka: topic set-up, the producer).
    let supporting: [any Service]

    /// The services to run, in start order: the supporting ones (topic set-up
    /// in the background, the producer), then HTTP. Stopped in reverse: HTTP
    /// drains its in-flight webhooks first, then the producer flushes and closes.
    public var services: [any Service] {
        supporting + [shell.server]
    }
}

/// Builds the webhook receiver over Kafka: an idempotent producer whose
/// delivery timeout is `configuration.publishTimeout`, topic set-up at start,
/// and a `kafka` readiness check.
///
/// - Parameters:
///   - verifiers: one per enabled provider; other providers' routes answer 404.
///   - messaging: brokers and topic layout.
///   - configuration: body limit, publish timeout, forwarded-address trust.
///   - http: address, port and limits of the server; its body limit is
///     replaced by `configuration.maxBodyBytes` (webhooks are the only
///     requests with bodies).
///   - logger: the service's root logger.
///   - metrics: registry for `webhooks_*`, HTTP and anything the caller adds.
///   - now: the `receivedAt` clock.
/// - Throws: ``WebhookReceiverSetupError``.
public func buildWebhookReceiverApplication(
    verifiers: [any WebhookVerifier],
    messaging: MessagingSettings,
    configuration: WebhookReceiverConfiguration = WebhookReceiverConfiguration(),
    http: HTTPServerConfiguration = HTTPServerConfiguration(),
    logger: Logger,
    metrics: MetricsRegistry = MetricsRegistry(),
    now: @escaping @Sendable () -> Date = { Date() }
) throws(WebhookReceiverSetupError) -> WebhookReceiverApplication {
    _ = try verifiersByProvider(verifiers)
    let producer: KafkaProducer
    let admin: KafkaAdmin
    do {
        producer = try KafkaProducer(
            configuration: WebhookPublisher.producerConfiguration(
                messaging: messaging, timeout: configuration.publishTimeout, linger: configuration.publishLinger),
            logger: logger)
        admin = try KafkaAdmin(configuration: messaging.client)
    } catch {
        throw .kafka(String(describing: error))
    }
    let readiness = BrokerReadiness(admin: admin, cacheDuration: configuration.readinessCacheDuration)
    let core = try buildWebhookReceiverApplication(
        verifiers: verifiers, publisher: WebhookPublisher(producer: producer, timeout: configuration.publishTimeout),
        // Reachable is not enough: after a broker restart the producer can reach it and
        // still have every record refused, so readiness also asks its own deliveries.
        brokerCheck: { [window = messaging.publishReadinessWindow] in
            try await readiness.check()
            try producer.checkPublishing(window: window)
        },
        configuration: configuration, http: http, logger: logger, metrics: metrics, now: now)
    let topicSetup = TopicSetupService(ensure: { try await messaging.ensureTopics(Topics.all) }, logger: logger)
    return WebhookReceiverApplication(publisher: core.publisher, shell: core.shell, topicSetup: topicSetup, supporting: [topicSetup, producer])
}

/// Builds the webhook receiver over any publisher (router tests pass a fake);
/// the same routes, limits and metrics as over Kafka.
///
/// - Parameters:
///   - publisher: where verified webhooks are stored before the 200.
///   - brokerCheck: the `kafka` readiness check, if any.
///   - others: as in ``buildWebhookReceiverApplication(verifiers:messaging:configuration:http:logger:metrics:now:)``.
/// - Throws: ``WebhookReceiverSetupError/noVerifiers`` or ``WebhookReceiverSetupError/duplicateProvider(_:)``.
public func buildWebhookReceiverApplication(
    verifiers: [any WebhookVerifier],
    publisher: any WebhookPublishing,
    brokerCheck: (@Sendable () async throws -> Void)? = nil,
    configuration: WebhookReceiverConfiguration = WebhookReceiverConfiguration(),
    http: HTTPServerConfiguration = HTTPServerConfiguration(),
    logger: Logger,
    metrics: MetricsRegistry = MetricsRegistry(),
    now: @escaping @Sendable () -> Date = { Date() }
) throws(WebhookReceiverSetupError) -> WebhookReceiverApplication {
    let byProvider = try verifiersByProvider(verifiers)
    let webhookMetrics = WebhookMetrics(registry: metrics)
    let health = HealthChecks()
    if let brokerCheck { health.register("kafka", timeout: .seconds(2), brokerCheck) }

    var serverConfiguration = http
    serverConfiguration.maxBodyBytes = configuration.maxBodyBytes
    let enabled = Set(byProvider.keys)
    serverConfiguration.bodyTooLargeObserver = { path in
        // Refused by the server before any handler ran: count it here.
        guard let provider = webhookProvider(inPath: path), enabled.contains(provider) else { return }
        webhookMetrics.count(provider, .tooLarge)
    }
    let routes = WebhookRoutes(verifiers: byProvider, publisher: publisher, configuration: configuration, metrics: webhookMetrics, now: now)
    return WebhookReceiverApplication(
        publisher: publisher,
        shell: ApplicationShell(http: serverConfiguration, health: health, metrics: metrics, logger: logger) { routes.mount(on: $0) },
        topicSetup: nil, supporting: [])
}

/// `verifiers` by provider; refuses none and duplicates.
func verifiersByProvider(_ verifiers: [any WebhookVerifier]) throws(WebhookReceiverSetupError) -> [Provider: any WebhookVerifier] {
    guard !verifiers.isEmpty else { throw .noVerifiers }
    var byProvider: [Provider: any WebhookVerifier] = [:]
    for verifier in verifiers {
        guard byProvider.updateValue(verifier, forKey: verifier.provider) == nil else { throw .duplicateProvider(verifier.provider) }
    }
    return byProvider
}

/// The provider of a raw `/api/webhooks/<provider>` path, or nil.
func webhookProvider(inPath path: String) -> Provider? {
    let prefix = "/api/webhooks/"
    guard path.hasPrefix(prefix) else { return nil }
    var name = path.dropFirst(prefix.count)
    if name.hasSuffix("/") { name = name.dropLast() }
    return Provider(rawValue: String(name))
}
