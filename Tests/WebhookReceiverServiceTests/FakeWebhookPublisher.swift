import Foundation
import Kafka
import BillingModel
import Synchronization
import Telemetry
import WebhookReceiverService
import WebhookReceiverTestSupport
import Webhooks

/// A publisher with no broker for router tests: it keeps what it is given,
/// decoded, or fails every publish with `failure`; it answers before
/// `publish` returns, or from another thread when `answersLater` (as the
/// Kafka publisher's poll thread does).
final class FakeWebhookPublisher: WebhookPublishing {
    private let records = Mutex<[(key: String, envelope: WebhookEnvelope)]>([])
    private let failure: WebhookPublishError?
    private let answersLater: Bool

    init(failing failure: WebhookPublishError? = nil, answersLater: Bool = false) {
        self.failure = failure
        self.answersLater = answersLater
    }

    /// What was published, in order.
    var published: [(key: String, envelope: WebhookEnvelope)] { records.withLock { $0 } }

    func publish(
        key: String, value: [UInt8], completion: @escaping @Sendable (Result<KafkaDeliveryReport, WebhookPublishError>) -> Void
    ) {
        let result = store(key: key, value: value)
        if answersLater {
            Thread.detachNewThread { completion(result) }
        } else {
            completion(result)
        }
    }

    private func store(key: String, value: [UInt8]) -> Result<KafkaDeliveryReport, WebhookPublishError> {
        if let failure { return .failure(failure) }
        // A value the projector could not decode is a receiver bug: fail loudly.
        let envelope: WebhookEnvelope
        do {
            envelope = try RecordCoding.decode(WebhookEnvelope.self, from: value)
        } catch {
            return .failure(.failed("not an envelope: \(error)"))
        }
        let offset = records.withLock { records in
            records.append((key, envelope))
            return Int64(records.count - 1)
        }
        return .success(KafkaDeliveryReport(topic: Topics.webhooks, partition: 0, offset: offset))
    }
}

/// The receiver over `publisher`, for router tests: no broker, no socket.
func makeRouterApplication(
    verifiers: [any WebhookVerifier] = TestSecrets.bothVerifiers, publisher: any WebhookPublishing = FakeWebhookPublisher(),
    configuration: WebhookReceiverConfiguration = WebhookReceiverConfiguration(), metrics: MetricsRegistry = MetricsRegistry()
) throws -> WebhookReceiverApplication {
    try buildWebhookReceiverApplication(
        verifiers: verifiers, publisher: publisher, configuration: configuration, logger: quietLogger, metrics: metrics)
}
