import Kafka
import ServiceRuntime
import Telemetry

/// Keeps a Kafka producer for the process's lifetime as one service of a
/// ``ServiceGroup`` and flushes it when the group stops it. Put it before the
/// HTTP server in the group: services stop in reverse order, so in-flight
/// requests finish publishing before the producer closes.
public struct ProducerService: Service {
    public let name = "kafka-producer"
    let producer: KafkaProducer
    let flushTimeout: Duration
    let logger: Logger

    public init(producer: KafkaProducer, flushTimeout: Duration = .seconds(10), logger: Logger) {
        self.producer = producer
        self.flushTimeout = flushTimeout
        self.logger = logger
    }

    public func run() async throws {
        // Idle until the group cancels this service on shutdown.
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
        let undelivered = await producer.shutdown(timeout: flushTimeout)
        let counters = producer.counters
        let metadata = [
            "kafka.delivered": String(counters.delivered), "kafka.failed": String(counters.failed),
            "kafka.undelivered_at_close": String(undelivered.count),
        ]
        if undelivered.isEmpty {
            logger.info("kafka producer closed", metadata: metadata)
        } else {
            logger.error("kafka producer closed with records not delivered", metadata: metadata)
        }
    }
}
