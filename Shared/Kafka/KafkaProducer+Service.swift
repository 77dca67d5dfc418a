import ServiceRuntime
import Telemetry

/// A producer kept for the process's lifetime is one service of a
/// ``ServiceGroup``: it idles while the group runs and flushes when the group
/// stops it. Put it before the HTTP server in the group: services stop in
/// reverse order, so in-flight requests finish publishing before it closes.
extension KafkaProducer: Service {
    public var name: String { "kafka-producer" }

    /// Waits until cancelled, then ``shutdown(timeout:)`` with
    /// ``KafkaProducerConfiguration/closeTimeout`` and logs the totals.
    public func run() async throws {
        await idleUntilStopped()
        let undelivered = await shutdown(timeout: configuration.closeTimeout)
        let counters = counters
        let metadata = [
            "kafka.delivered": String(counters.delivered), "kafka.failed": String(counters.failed),
            "kafka.undelivered_at_close": String(undelivered.count),
        ]
        if undelivered.isEmpty {
            logger?.info("kafka producer closed", metadata: metadata)
        } else {
            logger?.error("kafka producer closed with records not delivered", metadata: metadata)
        }
    }
}
