import CheckoutService
import Foundation
import HTTPServer
import Kafka
import BillingModel
import Telemetry
import TestSupport
import Testing

/// `GET /api/entitlements` over a subscription whose period ended without
/// news: the answer follows the renewal grace at once, and a
/// `refresh_requested` command for that subscription (and none for a fresh
/// one) reaches the real broker, keyed like every command.
@Suite struct RefreshTests {
    let day: TimeInterval = 86_400

    @Test func aStaleSubscriptionReadAnswersAtOnceAndPublishesARefreshCommand() async throws {
        try await Harness.with { harness in
            let user = TestNames.unique("refresh")
            let stale = TestNames.unique("stale"), fresh = TestNames.unique("fresh")
            let periodEnd = Date().addingTimeInterval(-2 * day)
            try await ProjectionRows.subscription(
                harness.pool, provider: "lemonsqueezy", id: stale, appUserID: user, product: "2", variant: "3", plan: "Premium",
                status: "active", renewsAt: periodEnd)
            try await ProjectionRows.subscription(
                harness.pool, provider: "lemonsqueezy", id: fresh, appUserID: user, product: "5", variant: "6", plan: "Icons",
                status: "active", renewsAt: Date().addingTimeInterval(20 * day))
            let token = try Harness.token(sub: user, email: nil)

            let response = try await harness.request(.get, "/api/entitlements", token: token)
            #expect(response.status == .ok, "\(response.text)")
            let entitlements = try response.decode(EntitlementsResponse.self).entitlements
            let overdue = try #require(entitlements.first { $0.identifier == "ls_2" })
            #expect(overdue.isActive && overdue.willRenew, "within the renewal grace")
            #expect(overdue.expiresAt.map { abs($0.timeIntervalSince(periodEnd)) < 1 } == true, "the period end, not hidden")

            let found = try await TopicReader.first(
                SubscriptionCommand.self, topic: Topics.commands, clientID: "checkout-tests", timeout: .seconds(45)
            ) { command, _ in
                command.kind == .refreshRequested && command.appUserID == user
            }
            let (command, record) = try #require(found, "no refresh command for \(user) on \(Topics.commands)")
            #expect(command.subscriptionID == stale && command.provider == .lemonsqueezy, "only the stale one")
            #expect(record.key.map { String(decoding: $0, as: UTF8.self) } == TopicKey.command(.lemonsqueezy, subscriptionID: stale))
            let metrics = harness.app.metrics
            #expect(
                await eventually(timeout: .seconds(10)) {
                    metrics.renderPrometheus().contains(#"checkout_refresh_requests_total{result="published"} 1"#)
                })

            // Read again at once (the status route this time): answered, nothing published again.
            let status = try await harness.request(.get, "/api/subscription/status", token: token)
            let active = try status.json()["active"] as? Bool
            #expect(status.status == .ok && active == true, "\(status.text)")
            #expect(metrics.renderPrometheus().contains(#"checkout_refresh_requests_total{result="limited"} 1"#))
            #expect(metrics.renderPrometheus().contains(#"checkout_refresh_requests_total{result="published"} 1"#))
        }
    }
}
