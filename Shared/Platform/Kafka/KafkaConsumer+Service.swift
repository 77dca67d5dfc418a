import ServiceRuntime

/// A consumer kept for the process's lifetime is one service of a
/// ``ServiceGroup``: it idles while the group runs and leaves the consumer
/// group when the group stops it. Put it before the loop that reads it:
/// services stop in reverse order, so the loop finishes and commits its last
/// batch before the consumer closes.
extension KafkaConsumer: Service {
    public var name: String { "kafka-consumer" }

    /// Waits until cancelled, then ``close()``.
    public func run() async throws {
        await idleUntilStopped()
        await close()
    }
}
