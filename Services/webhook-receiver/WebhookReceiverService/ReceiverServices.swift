import Timing
import Kafka
import ServiceRuntime
import Synchronization
import Telemetry

/// Creates Storefront's topics at start-up, retrying with backoff while the
/// broker is unreachable (instead of crash-looping), then idles until the
/// group stops. The HTTP server runs meanwhile: `/healthz` answers, `/readyz`
/// reports the broker, and webhooks are answered 503 until records can be stored.
public struct TopicSetupService: Service {
    public let name = "topic-setup"
    let ensure: @Sendable () async throws -> Void
    let logger: Logger
    let initialDelay: Duration
    let maximumDelay: Duration
    let done = TopicSetupState()

    init(
        ensure: @escaping @Sendable () async throws -> Void, logger: Logger,
        initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(30)
    ) {
        self.ensure = ensure
        self.logger = logger
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// Whether the topics were ensured.
    public var isDone: Bool { done.flag.load(ordering: .acquiring) }

    public func run() async throws {
        var attempts = 1
        let ensured = await Backoff(initial: initialDelay, maximum: maximumDelay).retry(
            failed: { error, failures, delay in
                attempts = failures + 1
                logger.warning(
                    "kafka topics not ensured yet (broker unreachable?); retrying",
                    metadata: [
                        "error": String(describing: error), "kafka.attempt": String(failures),
                        "retry_in_seconds": String(delay.inSeconds),
                    ])
            }, ensure)
        if ensured {
            done.flag.store(true, ordering: .releasing)
            logger.info("kafka topics ensured", metadata: ["kafka.attempt": String(attempts)])
        }
        // Returning early would stop the whole group: idle until stopped.
        await idleUntilStopped()
    }
}

/// Set once the topics exist.
final class TopicSetupState: Sendable {
    let flag = Atomic<Bool>(false)
}
