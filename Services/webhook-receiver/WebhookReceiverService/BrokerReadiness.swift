import Kafka
import BillingModel
import Synchronization

/// The `/readyz` broker check: a metadata request for the webhooks topic,
/// which fails when the broker is unreachable or the topic is missing.
/// Results are reused for a short while so frequent probes cost one request.
final class BrokerReadiness: Sendable {
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    private struct Cached {
        let at: ContinuousClock.Instant
        let failure: String?
    }

    private let admin: KafkaAdmin
    private let topic: String
    private let cacheDuration: Duration
    private let requestTimeout: Duration
    private let cached = Mutex<Cached?>(nil)

    init(admin: KafkaAdmin, topic: String = Topics.webhooks, cacheDuration: Duration, requestTimeout: Duration = .seconds(1)) {
        self.admin = admin
        self.topic = topic
        self.cacheDuration = cacheDuration
        self.requestTimeout = requestTimeout
    }

    /// Throws when the broker (or the topic) is not usable.
    func check() async throws {
        let clock = ContinuousClock()
        if let recent = cached.withLock({ $0 }), clock.now - recent.at < cacheDuration {
            if let failure = recent.failure { throw Unavailable(description: failure) }
            return
        }
        var failure: String?
        do {
            _ = try await admin.partitionCount(topic: topic, timeout: requestTimeout)
        } catch {
            failure = "\(topic): \(error)"
        }
        cached.withLock { $0 = Cached(at: clock.now, failure: failure) }
        if let failure { throw Unavailable(description: failure) }
    }
}
