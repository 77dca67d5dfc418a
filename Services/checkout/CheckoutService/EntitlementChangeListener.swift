import Kafka
import ServiceRuntime
import Telemetry
import EntitlementSigning

/// Reads `storefront.entitlements.v1` and hands each change to the replica's
/// ``EntitlementChangeHub``. Nothing is committed (see
/// ``EntitlementChangeTopic/consumerConfiguration(client:replica:)``): the
/// stream is live, not a log to resume.
///
/// Only the changes the projector signed reach the hub
/// (``EntitlementChangeGate``): anyone who can write to the broker can write
/// the topic, and the stream is what an app believes of its user's access.
public struct EntitlementChangeListener: Service {
    public var name: String { "entitlement-stream" }

    /// Run it as a service before this one: it closes after the loop stops.
    public let consumer: KafkaConsumer
    let hub: EntitlementChangeHub
    /// Lets through only the changes the projector signed.
    let gate: EntitlementChangeGate
    let logger: Logger
    /// `checkout_stream_changes_total{result}`: `forwarded` or `unreadable`.
    let forwarded: Counter
    let unreadable: Counter

    /// - Parameter verifier: the projector's public keys (`ENTITLEMENT_VERIFY_KEYS_FILE`).
    public init(consumer: KafkaConsumer, hub: EntitlementChangeHub, verifier: EntitlementChangeVerifier, logger: Logger, metrics: MetricsRegistry) {
        self.consumer = consumer
        self.hub = hub
        gate = EntitlementChangeGate(verifier: verifier, registry: metrics, logger: logger)
        self.logger = logger
        let help = "Entitlement changes read from the topic, by result (forwarded to the live stream, or unreadable and skipped)."
        forwarded = metrics.counter("checkout_stream_changes_total", help: help, labels: ["result": "forwarded"])
        unreadable = metrics.counter("checkout_stream_changes_total", help: help, labels: ["result": "unreadable"])
        let waiting = metrics.gauge("checkout_stream_waiting", help: "Live-stream polls waiting for a change.")
        let replayBytes = metrics.gauge(
            "checkout_stream_replay_bytes", help: "What the live stream's kept changes cost (CHECKOUT_STREAM_REPLAY_BYTES at most).")
        let evicted = metrics.sampledCounter(
            "checkout_stream_polls_evicted_total",
            help: "Waiting live-stream polls ended with no changes because their user opened more than CHECKOUT_STREAM_MAX_PER_USER.")
        let refused = metrics.sampledCounter(
            "checkout_stream_polls_refused_total", help: "Live-stream polls refused with 503 stream_busy (CHECKOUT_STREAM_MAX_WAITING reached).")
        let dropped = metrics.sampledCounter(
            "checkout_stream_replay_dropped_total",
            help: "Kept changes dropped before CHECKOUT_STREAM_REPLAY_WINDOW ended, by the per-user, count or byte budget.")
        metrics.onCollect { [hub] in
            waiting.set(Double(hub.waitingPolls))
            replayBytes.set(Double(hub.replayBytes))
            let tally = hub.tally
            evicted.record(total: Double(tally.evicted))
            refused.record(total: Double(tally.refused))
            dropped.record(total: Double(tally.dropped))
        }
    }

    public func run() async throws {
        do {
            for try await batch in consumer.batches {
                for record in batch.records { handle(record) }
            }
        } catch is CancellationError {
            // Stopping.
        }
    }

    func handle(_ record: KafkaConsumerRecord) {
        // Counted and logged by the gate (never counted as forwarded or unreadable).
        guard gate.admits(record) else { return }
        guard let value = record.value, let change = StreamedEntitlementChange(value: value) else {
            // The outbox's own consumers (webhooks out) judge a bad record; the stream only skips it.
            unreadable.increment()
            logger.warning(
                "entitlement change without id or app_user_id skipped",
                metadata: ["kafka.partition": String(record.partition), "kafka.offset": String(record.offset)])
            return
        }
        forwarded.increment()
        hub.publish(change)
    }

    /// Whether the consumer owns its partitions yet (the `entitlement-stream`
    /// readiness check: before that, changes would pass unseen).
    public var isAssigned: Bool { !consumer.assignment.isEmpty }
}
