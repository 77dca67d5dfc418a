import Foundation
import HTTPClient
import HTTPPrimitives
import Testing

/// The reconciler's revenue gauges in the deployed shape: it runs as its own
/// database user (role `storefront_reconciler`, which may read only the view
/// `revenue_events` of the log) and prices Lemon Squeezy from the sandbox's
/// catalog through its own clients. A subscription bought through the API
/// raises its provider's MRR by the plan's monthly price. (The figures'
/// definitions are checked exactly against a hand-computed history in
/// `RevenueGaugesFixtureTests`; here, that the wiring delivers them.)
///
/// A stack of its own: the gauges are sums over every purchase, so another
/// suite's subscriptions (bought, cancelled, expiring meanwhile) would move
/// them while this one waits.
@Suite(.serialized, .liveStack(["RECONCILER_REVENUE_INTERVAL": "2s"])) struct RevenueEndToEndTests {
    var stack: LiveStack { get throws { try LiveStack.required() } }

    /// The reconciler's sample lines, by series as rendered.
    func reconcilerSeries(_ stack: LiveStack) async throws -> [String: Double] {
        let url = try #require((stack.settings["RECONCILER_URLS"] ?? "").split(separator: " ").first.map(String.init), "a reconciler runs")
        let response = try await stack.request(.get, url + "/metrics")
        #expect(response.status == 200)
        var series: [String: Double] = [:]
        for line in response.bodyString.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            series[String(line[..<space])] = value
        }
        return series
    }

    @Test func aLemonSqueezySubscriptionRaisesTheMRRGauge() async throws {
        let stack = try self.stack
        let flow = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        let product = try await flow.subscriptionProduct()
        // The plan's price as the catalog lists it, as a month (sandbox plans are monthly or yearly).
        let products = try #require(
            try JSONSerialization.jsonObject(with: Data(try await stack.request(.get, stack.gateway + "/api/products").body)) as? [String: Any])
        let items = try #require((products["products"] as? [String: Any])?["data"] as? [[String: Any]])
        let attributes = try #require(
            items.first { $0["id"] as? String == product.productID && $0["variantId"] as? String == product.variantID }?["attributes"]
                as? [String: Any])
        let currency = try #require(attributes["currency"] as? String)
        let price = try #require((attributes["price"] as? NSNumber)?.doubleValue)
        let months = (attributes["interval"] as? String == "year" ? 12.0 : 1.0) * Double((attributes["interval_count"] as? NSNumber)?.intValue ?? 1)
        let monthly = (price / months).rounded(.toNearestOrAwayFromZero) / 100

        let mrr = #"storefront_mrr{currency="\#(currency)",provider="lemonsqueezy"}"#
        let active = #"storefront_revenue_active_subscribers{currency="\#(currency)",provider="lemonsqueezy"}"#
        let refreshed = "reconciler_revenue_last_refresh_timestamp_seconds"
        let before = try await stack.eventually(timeout: .seconds(60), "a first revenue computation") { () -> [String: Double]? in
            let series = try await reconcilerSeries(stack)
            return (series[refreshed] ?? 0) > 0 ? series : nil
        }
        let bought = Date().timeIntervalSince1970
        _ = try await flow.buySubscription()

        let after = try await stack.eventually(timeout: .seconds(60), "the subscription in the revenue gauges") { () -> [String: Double]? in
            let series = try await reconcilerSeries(stack)
            return (series[refreshed] ?? 0) > bought && (series[mrr] ?? 0) > (before[mrr] ?? 0) ? series : nil
        }
        #expect(monthly > 0)
        // The stack's only purchase: the gauges hold exactly it.
        #expect((before[mrr] ?? 0) == 0 && abs((after[mrr] ?? 0) - monthly) < 0.005, "MRR \(after[mrr] ?? 0), plan \(monthly) a month")
        #expect((before[active] ?? 0) == 0 && after[active] == 1)
        #expect(after["reconciler_revenue_refresh_failures_total"] == 0)
        #expect((after["reconciler_revenue_events_read"] ?? 0) > 0)
    }
}
