import Kafka
import Telemetry

/// What every consumer of `storefront.entitlements.v1` asks before acting on
/// a record: is it the projector's? A record that is not is counted
/// (`storefront_entitlement_changes_rejected_total{reason}`), logged by
/// where it is (never what it says), and passed over: the consumer commits
/// past it, so a forged record cannot hold a partition back. It is not
/// dead-lettered: a replay would publish it unsigned again, and anyone who
/// can write the topic could fill the dead-letter topic.
public struct EntitlementChangeGate: Sendable {
    let verifier: EntitlementChangeVerifier
    let rejected: [EntitlementChangeVerifier.Rejection: Counter]
    let logger: Logger

    /// - Parameters:
    ///   - verifier: the projector's public keys.
    ///   - registry: where the rejection counter is registered (every reason, from zero).
    ///   - logger: where rejections are logged (warning).
    public init(verifier: EntitlementChangeVerifier, registry: MetricsRegistry, logger: Logger) {
        self.verifier = verifier
        self.logger = logger
        let help = "Records on storefront.entitlements.v1 refused because the projector did not sign them, by reason; never delivered nor streamed."
        rejected = Dictionary(
            uniqueKeysWithValues: EntitlementChangeVerifier.Rejection.allCases.map {
                ($0, registry.counter("storefront_entitlement_changes_rejected_total", help: help, labels: ["reason": $0.rawValue]))
            })
    }

    /// Whether `record` may be acted on; a refusal is counted and logged here.
    public func admits(_ record: KafkaConsumerRecord) -> Bool {
        guard let reason = verifier.rejection(of: record) else { return true }
        rejected[reason]?.increment()
        logger.warning(
            "entitlement change not signed by the projector; passed over",
            metadata: [
                "reason": reason.rawValue, "kafka.topic": record.topic, "kafka.partition": String(record.partition),
                "kafka.offset": String(record.offset),
            ])
        return false
    }
}
