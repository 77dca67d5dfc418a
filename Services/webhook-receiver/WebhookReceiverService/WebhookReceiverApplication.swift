import Foundation
import HTTPServer
import Kafka
import MessagingSetup
import Models
import ProviderConfiguration
import ServiceHTTP
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
            "no webhook verifier is configured: enable at least one payment provider (Lemon Squeezy or Paystack)"
        case .duplicateProvider(let provider):
            "more than one webhook verifier for provider \(provider.rawValue)"
        case .kafka(let reason):
            "cannot create the Kafka clients: \(reason)"
        }
    }
}

/// The webhook receiver, assembled: verifiers, publisher, routes and server.
///
/// The executable and the tests build it the same way through
/// ``buildWebhookReceiverApplication(verifiers:messaging:configuration:http:logger:metrics:now:)``;
/// tests may call ``respond(to:logger:)`` directly, without a socket.
public struct WebhookReceiverApplication: Sendable {
    /// The publisher (and through it the producer) webhooks go through.
    public let publisher: WebhookPublisher
    /// Creates the topics at start-up, retrying while the broker is down.
    public let topicSetup: TopicSetupService
    /// Readiness checks: `kafka` (metadata of `storefront.webhooks.v1`).
    public let health: HealthChecks
    /// Where `webhooks_*` and the HTTP metrics are registered.
    public let metrics: MetricsRegistry
    /// The frozen router (webhook and operational routes).
    public let responder: RouterResponder
    /// The HTTP server (not started).
    public let server: HTTPServer
    let producerService: ProducerService

    /// The services to run, in start order: topic set-up (in the background),
    /// the producer's owner, then HTTP. Stopped in reverse: HTTP drains its
    /// in-flight webhooks first, then the producer flushes and closes.
    public var services: [any Service] {
        [topicSetup, producerService, HTTPServerService(name: "http", server: server)]
    }

    /// Answers `request` as the server would (no socket).
    public func respond(to request: HTTPRequest, logger: Logger) async -> HTTPResponse {
        await responder.respond(to: request, logger: logger).response
    }
}

/// The verifiers for the enabled providers, in ``Provider/allCases`` order.
public func webhookVerifiers(for configuration: ProvidersConfiguration) -> [any WebhookVerifier] {
    var verifiers: [any WebhookVerifier] = []
    if let lemonSqueezy = configuration.lemonSqueezy, let verifier = LemonSqueezyWebhookVerifier(configuration: lemonSqueezy) {
        verifiers.append(verifier)
    }
    if let paystack = configuration.paystack { verifiers.append(PaystackWebhookVerifier(configuration: paystack)) }
    return verifiers
}

/// Builds the webhook receiver.
///
/// - Parameters:
///   - verifiers: one per enabled provider; other providers' routes answer 404.
///   - messaging: brokers and topic layout; the producer's delivery timeout
///     is set to `configuration.publishTimeout`.
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
    guard !verifiers.isEmpty else { throw .noVerifiers }
    var byProvider: [Provider: any WebhookVerifier] = [:]
    for verifier in verifiers {
        guard byProvider.updateValue(verifier, forKey: verifier.provider) == nil else { throw .duplicateProvider(verifier.provider) }
    }

    let producer: KafkaProducer
    let admin: KafkaAdmin
    do {
        producer = try KafkaProducer(configuration: WebhookPublisher.producerConfiguration(
            client: messaging.client, timeout: configuration.publishTimeout))
        admin = try KafkaAdmin(configuration: messaging.client)
    } catch {
        throw .kafka(String(describing: error))
    }
    let publisher = WebhookPublisher(producer: producer, timeout: configuration.publishTimeout)
    let webhookMetrics = WebhookMetrics(registry: metrics)

    let readiness = BrokerReadiness(admin: admin, cacheDuration: configuration.readinessCacheDuration)
    let health = HealthChecks()
    health.register("kafka", timeout: .seconds(2)) { try await readiness.check() }

    let router = Router()
    router.addOperationalRoutes(health: health, metrics: metrics)
    WebhookRoutes(verifiers: byProvider, publisher: publisher, configuration: configuration, metrics: webhookMetrics, now: now)
        .mount(on: router)
    let responder = router.buildResponder()

    var serverConfiguration = http
    serverConfiguration.maxBodyBytes = configuration.maxBodyBytes
    let enabled = Set(byProvider.keys)
    serverConfiguration.bodyTooLargeObserver = { path in
        // Refused by the server before any handler ran: count it here.
        guard let provider = webhookProvider(inPath: path), enabled.contains(provider) else { return }
        webhookMetrics.count(provider, .tooLarge)
    }
    let server = HTTPServer(responder: responder, configuration: serverConfiguration, logger: logger, metrics: metrics)

    return WebhookReceiverApplication(
        publisher: publisher,
        topicSetup: TopicSetupService(ensure: { try await messaging.ensureTopics() }, logger: logger),
        health: health, metrics: metrics, responder: responder, server: server,
        producerService: ProducerService(producer: producer, flushTimeout: configuration.publishTimeout, logger: logger))
}

/// The provider of a raw `/api/webhooks/<provider>` path, or nil.
func webhookProvider(inPath path: String) -> Provider? {
    let prefix = "/api/webhooks/"
    guard path.hasPrefix(prefix) else { return nil }
    var name = path.dropFirst(prefix.count)
    if name.hasSuffix("/") { name = name.dropLast() }
    return Provider(rawValue: String(name))
}
