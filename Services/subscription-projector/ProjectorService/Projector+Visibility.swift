import Foundation
import Kafka
import BillingModel
import Telemetry

extension Projector {
    /// Observes how long each webhook of a batch took from the receiver to
    /// the projection, once the transaction that wrote it has committed.
    ///
    /// Only records of the webhooks topic count: a snapshot's time is the
    /// reconciler's fetch, not a receipt. A record delivered again (after a
    /// crash or rebalance, before its offset was committed) is observed again
    /// with its original receipt time, so such a delay shows up rather than
    /// hides. Clock skew between hosts can make a value negative; it is
    /// recorded as 0.
    static func observeVisibility(
        of inputs: [(record: KafkaConsumerRecord, input: ProjectionInput)], at now: Date, metrics: ProjectorMetrics
    ) {
        for (record, input) in inputs where record.topic == Topics.webhooks {
            guard case .webhook(let delivery) = input else { continue }
            metrics.webhookVisible(delivery.event.provider).observe(max(0, now.timeIntervalSince(delivery.receivedAt)))
        }
    }
}
