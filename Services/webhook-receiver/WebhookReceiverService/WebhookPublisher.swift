import Kafka
import ServiceRuntime
import Models

/// Why a webhook envelope was not stored.
public enum WebhookPublishError: Error, Sendable, CustomStringConvertible {
    /// The broker did not acknowledge within the publish timeout.
    case timedOut(Duration)
    /// The producer reported a failure (enqueue refused, delivery failed).
    case failed(String)
    /// The request was cancelled (server shutting down or handler deadline).
    case cancelled

    public var description: String {
        switch self {
        case .timedOut(let timeout): "broker did not acknowledge within \(timeout)"
        case .failed(let reason): "publish failed: \(reason)"
        case .cancelled: "publish abandoned: request cancelled"
        }
    }
}

/// Writes envelopes to `storefront.webhooks.v1` and waits, at most
/// ``timeout``, for the broker's acknowledgement.
///
/// The producer's `message.timeout.ms` is set to the same ``timeout`` (see
/// ``producerConfiguration(client:timeout:)``), so a message we stopped
/// waiting for is failed by librdkafka shortly afterwards (its timeout scan
/// runs about once a second) instead of minutes later. In that short window a
/// message can still reach the broker after its webhook was answered 503; the
/// provider then retries and the same delivery is published twice. That is
/// harmless: both records carry the same envelope `id` (the dedup key), and
/// the projector applies each envelope id once.
public final class WebhookPublisher: Sendable {
    public let producer: KafkaProducer
    public let timeout: Duration
    public let topic: String

    /// - Parameters:
    ///   - producer: an idempotent producer, ideally from ``producerConfiguration(client:timeout:)``.
    ///   - timeout: longest wait for an acknowledgement.
    ///   - topic: where envelopes go (``Topics/webhooks``).
    public init(producer: KafkaProducer, timeout: Duration, topic: String = Topics.webhooks) {
        self.producer = producer
        self.timeout = timeout
        self.topic = topic
    }

    /// The producer settings that match a publish `timeout`: librdkafka gives
    /// up on a message when the receiver does.
    public static func producerConfiguration(client: KafkaClientConfiguration, timeout: Duration) -> KafkaProducerConfiguration {
        KafkaProducerConfiguration(client: client, messageTimeout: timeout)
    }

    /// Publishes `value` under `key` and returns once the broker has it.
    /// - Throws: ``WebhookPublishError``.
    public func publish(key: String, value: [UInt8]) async throws(WebhookPublishError) -> KafkaDeliveryReport {
        let message = KafkaProducerMessage(topic: topic, key: key, value: value)
        let producer = producer
        // sendAndAwait cannot withdraw an enqueued message and waits for librdkafka's
        // verdict; the race answers the provider at the deadline instead.
        switch await raceAgainstDeadline(timeout, { try await producer.sendAndAwait(message) }) {
        case .finished(.success(let report)):
            return report
        case .finished(.failure(let error)):
            throw .failed(String(describing: error))
        case .timedOut:
            throw .timedOut(timeout)
        case .cancelled:
            throw .cancelled
        }
    }
}
