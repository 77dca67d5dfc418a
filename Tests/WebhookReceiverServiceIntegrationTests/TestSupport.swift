import Timing
import ServiceSettings
import CryptoPrimitives
import Foundation
import HTTPClient
import HTTPServer
import Kafka
import BillingModel
import ServiceRuntime
import Telemetry
import TestSupport
import Testing
import WebhookReceiverService
import WebhookReceiverTestSupport
import Webhooks

/// The shared test broker; fails the test loudly when it is not set.
func testBrokers() throws -> [String] {
    try TestEnvironment.kafkaBrokers()
}

func messagingSettings(_ brokers: [String]) -> MessagingSettings {
    MessagingSettings(client: KafkaClientConfiguration(bootstrapServers: brokers, clientID: "webhook-receiver-tests", logHandler: nil))
}

func uniqueName(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())" }

/// A receiver served on an ephemeral loopback port by its own service group.
struct LiveReceiver {
    let app: WebhookReceiverApplication
    let group: ServiceGroup
    let running: Task<Void, any Error>
    let baseURL: String
    let client = HTTPClient(configuration: HTTPClientConfiguration(timeout: .seconds(20), retryPolicy: .none))

    static func start(
        verifiers: [any WebhookVerifier] = TestSecrets.bothVerifiers, brokers: [String],
        configuration: WebhookReceiverConfiguration = WebhookReceiverConfiguration()
    ) async throws -> LiveReceiver {
        let app = try makeApplication(verifiers: verifiers, brokers: brokers, configuration: configuration)
        let group = ServiceGroup(services: app.services, configuration: .init(stopTimeout: .seconds(10), signals: []), logger: quietLogger)
        let running = Task { try await group.run() }
        guard await eventually(timeout: .seconds(60), { app.server.port != nil }), let port = app.server.port else {
            group.triggerGracefulShutdown(reason: "did not bind")
            throw SetupFailed(description: "the receiver did not bind a port")
        }
        return LiveReceiver(app: app, group: group, running: running, baseURL: "http://127.0.0.1:\(port)")
    }

    func post(_ provider: Provider, body: [UInt8], headers: [(String, String)]) async throws -> HTTPClientResponse {
        try await client.post(baseURL + "/api/webhooks/\(provider.rawValue)", headers: HTTPHeaders(headers), body: body)
    }

    func signedPost(_ provider: Provider, body: [UInt8]) async throws -> HTTPClientResponse {
        try await post(provider, body: body, headers: Signer.headers(provider, body))
    }

    func metricsText() async throws -> String {
        try await client.get(baseURL + "/metrics").bodyString
    }

    func stop() async throws {
        group.triggerGracefulShutdown(reason: "test finished")
        try await running.value
    }
}

struct SetupFailed: Error, CustomStringConvertible {
    let description: String
}

/// The application with an ephemeral loopback HTTP configuration.
func makeApplication(
    verifiers: [any WebhookVerifier] = TestSecrets.bothVerifiers, brokers: [String],
    configuration: WebhookReceiverConfiguration = WebhookReceiverConfiguration(), metrics: MetricsRegistry = MetricsRegistry()
) throws -> WebhookReceiverApplication {
    var http = HTTPServerConfiguration()
    http.bindAddress = "127.0.0.1"
    http.port = 0
    return try buildWebhookReceiverApplication(
        verifiers: verifiers, messaging: messagingSettings(brokers), configuration: configuration, http: http,
        logger: quietLogger, metrics: metrics)
}

/// One `storefront.webhooks.v1` record, decoded.
struct PublishedWebhook: Sendable {
    let key: String
    let envelope: WebhookEnvelope
}

/// Reads `storefront.webhooks.v1` from the beginning with a ``TopicReader``,
/// keeping every record that decodes as an envelope (other suites publish to
/// the same topic; tests look for the ids they made).
final class TopicWatcher: Sendable {
    private let reader: TopicReader

    init(brokers: [String]) async throws {
        // The topics must exist before a consumer subscribes to them.
        try await messagingSettings(brokers).ensureTopics(Topics.all)
        reader = try TopicReader(topics: [Topics.webhooks], clientID: "webhook-receiver-tests")
    }

    /// Records with envelope id `id` seen so far.
    func records(id: String) -> [PublishedWebhook] {
        reader.records.compactMap { record in
            guard let envelope = Self.envelope(record), envelope.id == id, let key = record.key else { return nil }
            return PublishedWebhook(key: String(decoding: key, as: UTF8.self), envelope: envelope)
        }
    }

    /// Waits for a record with envelope `id` (and, when given, exactly these payload bytes).
    /// Generous: the watcher reads a topic every suite shares from its start, and
    /// joining the group while every integration suite starts at once has taken over 30 s.
    func find(id: String, payload: [UInt8]? = nil, timeout: Duration = .seconds(90)) async -> PublishedWebhook? {
        let found = await reader.first(timeout: timeout) { record in
            guard let envelope = Self.envelope(record), envelope.id == id, record.key != nil else { return false }
            guard let payload else { return true }
            return envelope.payload.bytes == payload
        }
        guard let found, let key = found.key, let envelope = Self.envelope(found) else { return nil }
        return PublishedWebhook(key: String(decoding: key, as: UTF8.self), envelope: envelope)
    }

    /// The record's envelope; nil for a record of another shape (other suites share the topic).
    static func envelope(_ record: KafkaConsumerRecord) -> WebhookEnvelope? {
        record.value.flatMap { try? WebhookEnvelope.decodeRecord($0) }
    }

    func close() async { await reader.close() }
}
