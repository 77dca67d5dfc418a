import Kafka
import ServiceRuntime
import Telemetry

/// Keeps the Kafka producer for the process's lifetime and flushes it when
/// the group stops (after HTTP has drained, so in-flight requests still publish).
struct ProducerDrain: Service {
    let name = "kafka-producer"
    let producer: KafkaProducer
    let logger: Logger

    func run() async throws {
        // Sleep until cancelled: the group cancels this service on shutdown.
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                break
            }
        }
        let undelivered = await producer.shutdown()
        if !undelivered.isEmpty {
            logger.error("records not delivered at shutdown", metadata: ["count": String(undelivered.count)])
        }
    }
}
