import ServiceRuntime
import Telemetry

/// A producer kept for the process's lifetime is one service of a
/// ``ServiceGroup``: while the group runs it replaces a handle that can no
/// longer produce (each second, so an idle producer recovers too) and
/// re-creates missing declared topics (each
/// ``KafkaProducerConfiguration/topicCheckInterval``); it flushes when the
/// group stops it. Put it before the HTTP server in the group: services stop in
/// reverse order, so in-flight requests finish publishing before it closes.
extension KafkaProducer: Service {
    public var name: String { "kafka-producer" }

    /// Looks after the handle and the topics until cancelled, then
    /// ``shutdown(timeout:)`` with ``KafkaProducerConfiguration/closeTimeout``
    /// and logs the totals.
    public func run() async throws {
        await maintainUntilStopped()
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

    private func maintainUntilStopped() async {
        let clock = ContinuousClock()
        let interval = configuration.topicCheckInterval
        var lastTopicCheck = clock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            recoverIfLost()
            if interval > .zero, clock.now - lastTopicCheck >= interval {
                lastTopicCheck = clock.now
                await topicKeeper.ensure(because: "periodic check")
            }
        }
    }
}
