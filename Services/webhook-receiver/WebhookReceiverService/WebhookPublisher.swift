import Kafka
import BillingModel

/// Why a webhook envelope was not stored.
public enum WebhookPublishError: Error, Sendable, CustomStringConvertible {
    /// The broker did not acknowledge within the publish timeout.
    case timedOut(Duration)
    /// The producer reported a failure (enqueue refused, delivery failed).
    case failed(String)

    public var description: String {
        switch self {
        case .timedOut(let timeout): "broker did not acknowledge within \(timeout)"
        case .failed(let reason): "publish failed: \(reason)"
        }
    }
}

/// Where the receiver stores a verified webhook before answering 200: the one
/// seam between its routes and the broker. ``WebhookPublisher`` is the Kafka
/// one; router tests pass a fake, so they need no broker.
public protocol WebhookPublishing: Sendable {
    /// Stores `value` under `key` and calls `completion` exactly once: with
    /// the record's place once it is durable, or with why not (the route then
    /// answers 503). `completion` may run on any thread, before this returns
    /// or later (the Kafka publisher calls it on the producer's poll
    /// thread), and must not block. This must not block either: the route
    /// calls it on an HTTP thread.
    func publish(
        key: String, value: [UInt8], completion: @escaping @Sendable (Result<KafkaDeliveryReport, WebhookPublishError>) -> Void)
}

/// Writes envelopes to `storefront.webhooks.v1` and waits, at most
/// ``timeout``, for the broker's acknowledgement.
///
/// The wait is librdkafka's own: the producer's `message.timeout.ms` is set
/// to ``timeout`` (see ``producerConfiguration(messaging:timeout:linger:)``), and a
/// message not acknowledged by then is reported failed. Its timeout scan runs
/// about once a second, so a 503 can come up to a second after ``timeout``.
/// No timer of our own races the send: that cost a task pair and a timer per
/// webhook, for a bound librdkafka already keeps. A message whose report says
/// "timed out" may still have reached the broker; the provider then retries
/// and the same delivery is published twice. That is harmless: both records
/// carry the same envelope `id` (the dedup key), and the projector applies
/// each envelope id once.
public final class WebhookPublisher: WebhookPublishing {
    public let producer: KafkaProducer
    public let timeout: Duration
    public let topic: String

    /// - Parameters:
    ///   - producer: an idempotent producer, ideally from ``producerConfiguration(messaging:timeout:linger:)``.
    ///   - timeout: longest wait for an acknowledgement.
    ///   - topic: where envelopes go (``Topics/webhooks``).
    public init(producer: KafkaProducer, timeout: Duration, topic: String = Topics.webhooks) {
        self.producer = producer
        self.timeout = timeout
        self.topic = topic
    }

    /// The producer settings that match a publish `timeout`: librdkafka gives
    /// up on a message when the receiver does, and the producer's close waits
    /// no longer than one publish would. The producer keeps Storefront's topics
    /// in existence (``MessagingSettings/producerConfiguration(declaring:messageTimeout:closeTimeout:)``).
    /// `linger` is ``WebhookReceiverConfiguration/publishLinger``.
    public static func producerConfiguration(messaging: MessagingSettings, timeout: Duration, linger: Duration) -> KafkaProducerConfiguration {
        var configuration = messaging.producerConfiguration(declaring: Topics.all, messageTimeout: timeout, closeTimeout: timeout)
        configuration.linger = linger
        return configuration
    }

    /// Publishes `value` under `key` and calls `completion` with the broker's
    /// acknowledgement or the failure, on the producer's poll thread (see
    /// ``KafkaProducer/send(_:onDelivery:)``: a full local queue fails at once).
    public func publish(
        key: String, value: [UInt8], completion: @escaping @Sendable (Result<KafkaDeliveryReport, WebhookPublishError>) -> Void
    ) {
        let timeout = self.timeout
        producer.send(KafkaProducerMessage(topic: topic, key: key, value: value)) { result in
            completion(
                result.mapError { error in
                    error.code == .messageTimedOut ? .timedOut(timeout) : .failed(String(describing: error))
                })
        }
    }
}
