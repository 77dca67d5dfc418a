import Telemetry
import Testing
@testable import ProjectorService

@Suite struct SubscriptionGaugesTests {
    /// Returns the next answer on each call; `nil` stands for a failed count.
    final class ScriptedCounts: SubscriptionCountsSource, @unchecked Sendable {
        // Only touched from one test task, one call at a time.
        var answers: [[SubscriptionCount]?]
        init(_ answers: [[SubscriptionCount]?]) { self.answers = answers }
        struct Failure: Error {}
        func counts() async throws -> [SubscriptionCount] {
            guard let answer = answers.removeFirst() else { throw Failure() }
            return answer
        }
    }

    let quiet = Logger(service: "test", minimumLevel: .critical)

    @Test func publishesEachGroupAndZeroesOnesThatEmptied() async {
        let registry = MetricsRegistry()
        let source = ScriptedCounts([
            [
                SubscriptionCount(provider: "lemonsqueezy", plan: "Pro", status: "active", subscriptions: 3, withBillingIssue: 0),
                SubscriptionCount(provider: "paystack", plan: "Basic", status: "attention", subscriptions: 2, withBillingIssue: 2),
            ],
            [SubscriptionCount(provider: "lemonsqueezy", plan: "Pro", status: "active", subscriptions: 4, withBillingIssue: 1)],
        ])
        let gauges = SubscriptionGauges(source: source, registry: registry, logger: quiet)

        await gauges.refresh()
        var text = registry.renderPrometheus()
        #expect(text.contains("storefront_subscriptions{plan=\"Pro\",provider=\"lemonsqueezy\",status=\"active\"} 3\n"))
        #expect(text.contains("storefront_subscriptions{plan=\"Basic\",provider=\"paystack\",status=\"attention\"} 2\n"))
        #expect(text.contains("storefront_subscriptions_billing_issue{plan=\"Basic\",provider=\"paystack\",status=\"attention\"} 2\n"))

        await gauges.refresh()
        text = registry.renderPrometheus()
        #expect(text.contains("storefront_subscriptions{plan=\"Pro\",provider=\"lemonsqueezy\",status=\"active\"} 4\n"))
        #expect(text.contains("storefront_subscriptions_billing_issue{plan=\"Pro\",provider=\"lemonsqueezy\",status=\"active\"} 1\n"))
        #expect(text.contains("storefront_subscriptions{plan=\"Basic\",provider=\"paystack\",status=\"attention\"} 0\n"))
        #expect(text.contains("storefront_subscriptions_billing_issue{plan=\"Basic\",provider=\"paystack\",status=\"attention\"} 0\n"))
    }

    @Test func aFailedCountKeepsTheLastValuesAndIsCounted() async {
        let registry = MetricsRegistry()
        let source = ScriptedCounts([
            [SubscriptionCount(provider: "paystack", plan: "Basic", status: "active", subscriptions: 5, withBillingIssue: 0)], nil,
        ])
        let gauges = SubscriptionGauges(source: source, registry: registry, logger: quiet)
        await gauges.refresh()
        await gauges.refresh()
        let text = registry.renderPrometheus()
        #expect(text.contains("storefront_subscriptions{plan=\"Basic\",provider=\"paystack\",status=\"active\"} 5\n"))
        #expect(text.contains("storefront_subscription_gauges_failures_total 1\n"))
    }
}
