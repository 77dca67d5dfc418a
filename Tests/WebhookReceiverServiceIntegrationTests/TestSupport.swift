import Basics
import Crypto
import Foundation
import HTTPClient
import HTTPServer
import Kafka
import Models
import ServiceRuntime
import Synchronization
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

/// Reads `storefront.webhooks.v1` from the beginning with a group of its own,
/// keeping every record that decodes as an envelope (other suites publish to
/// the same topic; tests look for the ids they made).
final class TopicWatcher: Sendable {
    /// The decoded records, shared with the reading task.
    final class Store: Sendable {
        let records = Mutex<[PublishedWebhook]>([])
    }

    private let consumer: KafkaConsumer
    private let store = Store()
    private let reader: Task<Void, Never>

    init(brokers: [String]) async throws {
        // The topics must exist before a consumer subscribes to them.
        try await messagingSettings(brokers).ensureTopics(Topics.all)
        let client = KafkaClientConfiguration(bootstrapServers: brokers, clientID: "webhook-receiver-tests")
        let consumer = try KafkaConsumer(
            topics: [Topics.webhooks],
            configuration: KafkaConsumerConfiguration(client: client, groupID: uniqueName("receiver-tests"), maxBatchWait: .milliseconds(50)))
        self.consumer = consumer
        reader = Self.read(consumer, into: store)
    }

    private static func read(_ consumer: KafkaConsumer, into store: Store) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                do {
                    guard let batch = try await consumer.nextBatch(timeout: .milliseconds(200)) else { continue }
                    let decoded = batch.records.compactMap { record -> PublishedWebhook? in
                        guard let value = record.value, let key = record.key,
                            let envelope = try? RecordCoding.decode(WebhookEnvelope.self, from: value)
                        else { return nil }
                        return PublishedWebhook(key: String(decoding: key, as: UTF8.self), envelope: envelope)
                    }
                    store.records.withLock { $0.append(contentsOf: decoded) }
                } catch {
                    if Task.isCancelled { return }
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
        }
    }

    /// Records with envelope id `id` seen so far.
    func records(id: String) -> [PublishedWebhook] {
        store.records.withLock { $0.filter { $0.envelope.id == id } }
    }

    /// Waits for a record with envelope `id` (and, when given, exactly these payload bytes).
    func find(id: String, payload: [UInt8]? = nil, timeout: Duration = .seconds(30)) async -> PublishedWebhook? {
        var found: PublishedWebhook?
        _ = await eventually(timeout: timeout) {
            found = records(id: id).first { payload == nil || $0.envelope.payload.bytes == payload }
            return found != nil
        }
        return found
    }

    func close() async {
        reader.cancel()
        await reader.value
        await consumer.close()
    }
}
