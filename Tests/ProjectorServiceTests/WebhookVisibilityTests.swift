import Foundation
import Kafka
import BillingModel
import Telemetry
import Testing
@testable import ProjectorService

@Suite struct WebhookVisibilityTests {
    func delivery(_ provider: Provider, receivedAt: Date) -> ProjectionInput {
        .webhook(
            WebhookDelivery(
                dedupKey: UUID().uuidString,
                event: BillingEvent(kind: .orderCreated, provider: provider, providerEventName: "order_created", entityKey: "o-1"),
                receivedAt: receivedAt, payload: [], sourcePartition: 0, sourceOffset: 0))
    }

    func record(_ topic: String) -> KafkaConsumerRecord {
        KafkaConsumerRecord(topic: topic, partition: 0, offset: 0, key: nil, value: nil)
    }

    @Test func observesWebhooksOnlyFromReceiptToNow() {
        let registry = MetricsRegistry()
        let metrics = ProjectorMetrics(registry: registry)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        Projector.observeVisibility(
            of: [
                (record(Topics.webhooks), delivery(.lemonsqueezy, receivedAt: now.addingTimeInterval(-0.2))),
                (record(Topics.webhooks), delivery(.lemonsqueezy, receivedAt: now.addingTimeInterval(-40))),
                // A snapshot's time is a fetch, not a receipt: not observed.
                (record(Topics.snapshots), delivery(.paystack, receivedAt: now.addingTimeInterval(-1))),
                // Clock skew: a receipt "after" now counts as 0.
                (record(Topics.webhooks), delivery(.paystack, receivedAt: now.addingTimeInterval(3))),
            ], at: now, metrics: metrics)
        let text = registry.renderPrometheus()
        #expect(text.contains("projector_webhook_visible_seconds_count{provider=\"lemonsqueezy\"} 2\n"))
        #expect(text.contains("projector_webhook_visible_seconds_bucket{provider=\"lemonsqueezy\",le=\"0.25\"} 1\n"))
        #expect(text.contains("projector_webhook_visible_seconds_bucket{provider=\"lemonsqueezy\",le=\"60\"} 2\n"))
        #expect(text.contains("projector_webhook_visible_seconds_count{provider=\"paystack\"} 1\n"))
        #expect(text.contains("projector_webhook_visible_seconds_sum{provider=\"paystack\"} 0\n"))
    }
}
