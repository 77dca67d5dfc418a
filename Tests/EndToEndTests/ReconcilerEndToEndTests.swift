@testable import SeedModels
import Foundation
import HTTPClient
import Postgres
import Testing

/// The reconciler through real processes: the sandbox drops webhooks or
/// refuses requests, the reconciler fetches and sweeps, and the projection
/// converges to what the provider says. Sweeps run every 2 s here.
///
/// The tests marked "needs the projector's snapshots" rely on the projector
/// applying `storefront.snapshots.v1`; the others check the reconciler itself.
@Suite(
    .serialized,
    .liveStack([
        "RECONCILER_SWEEP_INTERVAL": "2s", "RECONCILER_SWEEP_INITIAL_DELAY": "1s", "RECONCILER_RETRY_MAX_DELAY": "2s",
    ]))
struct ReconcilerEndToEndTests {
    var stack: LiveStack { get throws { try LiveStack.required() } }

    func reconcilerURL(_ stack: LiveStack) throws -> String {
        try #require(stack.settings["RECONCILER_URLS"]?.split(separator: " ").first.map(String.init), "stack.sh started a reconciler")
    }

    /// One series' value in the reconciler's `/metrics` (0 when absent).
    func metric(_ stack: LiveStack, _ series: String) async throws -> Double {
        let text = try await stack.request(.get, try reconcilerURL(stack) + "/metrics").bodyString
        let line = text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    func faults(_ stack: LiveStack, _ json: String) async throws {
        let response = try await stack.request(.post, stack.sandbox + "/_sandbox/faults", json: json)
        #expect(response.status == 200, "faults answered \(response.status): \(response.bodyString)")
    }

    /// `lemonsqueezy:<checkout id>` or `paystack:<access code>`, from the hosted checkout URL.
    func checkoutName(_ provider: String, _ url: String) throws -> String {
        let path = try #require(URL(string: url)?.path)
        return "\(provider):\(try #require(path.split(separator: "/").last))"
    }

    func projectedStatus(_ stack: LiveStack, _ provider: String, _ subscriptionID: String) async throws -> String? {
        try await stack.withDatabase { pool in
            try await pool.query("SELECT status FROM subscriptions WHERE provider = \(provider) AND subscription_id = \(subscriptionID)")
                .first?.decode(column: 0, as: String.self)
        }
    }

    // MARK: - The reconciler on its own

    @Test func everyWebhookOfAPurchaseIsAnsweredByASnapshotAndTheHealthEndpointsAnswer() async throws {
        let stack = try self.stack
        let before = try await metric(stack, #"reconciler_snapshots_published_total{provider="lemonsqueezy",trigger="webhook"}"#)
        let flow = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        _ = try await flow.buySubscription()
        _ = try await stack.eventually("snapshots of the purchase's subscription and order") {
            let now = try await metric(stack, #"reconciler_snapshots_published_total{provider="lemonsqueezy",trigger="webhook"}"#)
            return now >= before + 2 ? now : nil
        }
        #expect(try await stack.request(.get, try reconcilerURL(stack) + "/readyz").status == 200)
        #expect(try await stack.request(.get, try reconcilerURL(stack) + "/healthz").status == 200)
        let sweeps = try await stack.eventually("a scheduled sweep") {
            let value = try await metric(stack, #"reconciler_sweeps_total{provider="lemonsqueezy",result="ok"}"#)
            return value > 0 ? value : nil
        }
        #expect(sweeps >= 1)
        #expect(try await metric(stack, #"reconciler_fetches_total{outcome="found",provider="lemonsqueezy"}"#) >= 2)
    }

    @Test func aCancelCommandIsRefetchedOnceTheProviderHasHadTime() async throws {
        let stack = try self.stack
        let series = #"reconciler_snapshots_published_total{provider="paystack",trigger="command"}"#
        let before = try await metric(stack, series)
        let flow = try await PurchaseFlow.make(stack, provider: "paystack")
        let bought = try await flow.buySubscription()
        let cancelled = try await flow.cancel(code: try #require(bought.subscriptionCode), emailToken: bought.emailToken)
        #expect(cancelled.status == 200)
        _ = try await stack.eventually("a snapshot triggered by the cancel command") {
            try await metric(stack, series) > before ? true : nil
        }
    }

    @Test func aProviderThatAnswers429IsRetriedWithinItsBudget() async throws {
        let stack = try self.stack
        let flow = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        let code = try #require(try await flow.buySubscription().subscriptionCode)
        let limited = try await metric(stack, #"reconciler_provider_rate_limited_total{provider="lemonsqueezy"}"#)
        let published = try await metric(stack, #"reconciler_snapshots_published_total{provider="lemonsqueezy",trigger="webhook"}"#)
        // The next two Lemon Squeezy API requests (the reconciler's fetch after this renewal) answer 429, Retry-After 1.
        try await faults(stack, #"{"api_429_next":2,"api_429_provider":"lemonsqueezy","api_retry_after_seconds":1}"#)
        try await flow.sandbox("renew", subscription: code)
        _ = try await stack.eventually("the renewal's snapshot despite the 429s") {
            try await metric(stack, #"reconciler_snapshots_published_total{provider="lemonsqueezy",trigger="webhook"}"#) > published ? true : nil
        }
        #expect(try await metric(stack, #"reconciler_provider_rate_limited_total{provider="lemonsqueezy"}"#) >= limited + 1)
        try await faults(stack, "{}")
    }

    @Test func aProviderOutageShowsInReadinessAndDelaysSnapshotsWithoutLosingThem() async throws {
        let stack = try self.stack
        let flow = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        let code = try #require(try await flow.buySubscription().subscriptionCode)
        let published = try await metric(stack, #"reconciler_snapshots_published_total{provider="lemonsqueezy",trigger="webhook"}"#)
        // Every Lemon Squeezy API request refused: an outage (each fetch gives up after its attempts and is parked).
        try await faults(stack, #"{"api_429_next":100000,"api_429_provider":"lemonsqueezy","api_retry_after_seconds":2}"#)
        try await flow.sandbox("payment_failed", subscription: code)
        _ = try await stack.eventually("readiness reports the outage") {
            let response = try await stack.request(.get, try reconcilerURL(stack) + "/readyz")
            return response.status == 503 && response.bodyString.contains("provider:lemonsqueezy") ? true : nil
        }
        #expect(try await metric(stack, #"reconciler_provider_up{provider="lemonsqueezy"}"#) == 0)
        #expect(try await metric(stack, "reconciler_oldest_unreconciled_webhook_seconds") > 0)
        // Still consuming and committing: a Paystack purchase meanwhile is reconciled as usual.
        let paystack = try await metric(stack, #"reconciler_snapshots_published_total{provider="paystack",trigger="webhook"}"#)
        _ = try await PurchaseFlow.make(stack, provider: "paystack").buySubscription()
        _ = try await stack.eventually("Paystack snapshots during the Lemon Squeezy outage") {
            try await metric(stack, #"reconciler_snapshots_published_total{provider="paystack",trigger="webhook"}"#) > paystack ? true : nil
        }

        try await faults(stack, "{}")
        _ = try await stack.eventually("the parked fetch retried and published") {
            try await metric(stack, #"reconciler_snapshots_published_total{provider="lemonsqueezy",trigger="webhook"}"#) > published ? true : nil
        }
        _ = try await stack.eventually("readiness recovers") {
            try await stack.request(.get, try reconcilerURL(stack) + "/readyz").status == 200 ? true : nil
        }
        _ = try await stack.eventually("no webhook left unreconciled") {
            try await metric(stack, "reconciler_oldest_unreconciled_webhook_seconds") == 0 ? true : nil
        }
    }

    @Test func storefrontReconcilePrintsWhatItFoundAndTheDrift() async throws {
        let stack = try self.stack
        let flow = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        let code = try #require(try await flow.buySubscription().subscriptionCode)
        try await faults(stack, #"{"drop_subscriptions":["lemonsqueezy:\#(code)"]}"#)
        try await flow.sandbox("cancel", subscription: code)
        let output = stack.state + "/reconcile-\(UUID().uuidString.prefix(6)).out"
        try await ScriptRunner.run(
            try stack.binary("storefront"), ["reconcile", "--provider", "lemonsqueezy", "--since", "2000-01-01"],
            environment: sandboxSettings(stack), outputFile: output)
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(text.contains("lemonsqueezy subscriptions:") && text.contains("lemonsqueezy orders:"), "\(text)")
        #expect(text.contains("snapshot(s) published"), "\(text)")
        #expect(text.contains("done in"), "\(text)")
        // The cancellation reached no webhook; unless the scheduled sweep already corrected it, it is drift.
        if try await projectedStatus(stack, "lemonsqueezy", code) == "active" {
            #expect(text.contains("drift lemonsqueezy:\(code) projection=active provider=cancelled"), "\(text)")
        }
        try await faults(stack, "{}")
    }

    /// The settings `scripts/stack.sh` gives the reconciler: the API keys
    /// only (no webhook secret) and its own read-only database user.
    func sandboxSettings(_ stack: LiveStack) -> [String: String] {
        [
            "LEMONSQUEEZY_API_KEY": "ls_test_sandbox_key", "LEMONSQUEEZY_STORE_ID": "1",
            "PAYSTACK_SECRET_KEY": "sk_test_sandbox_secret", "LEMONSQUEEZY_API_BASE_URL": stack.sandbox + "/lemonsqueezy",
            "PAYSTACK_API_BASE_URL": stack.sandbox + "/paystack", "KAFKA_BROKERS": stack.settings["KAFKA_BROKERS"] ?? "",
            "DATABASE_URL": stack.settings["RECONCILER_DATABASE_URL"] ?? "", "LOG_LEVEL": "error",
        ]
    }

    // MARK: - Convergence (needs the projector's snapshots)

    /// Every webhook of the purchase is dropped (order, subscription, payment):
    /// only the reconciler's sweep can tell the projection about it. Paystack's
    /// transaction carries Storefront's metadata, so the purchase is the
    /// buyer's; a Lemon Squeezy object carries no custom data (only webhooks
    /// do), so its subscription reaches the buyer through the verified email;
    /// a Stripe subscription carries the checkout's claim in its metadata.
    @Test(arguments: ["paystack", "lemonsqueezy", "stripe"])
    func aPurchaseWhoseWebhooksAreAllDroppedBecomesActiveAfterASweep(provider: String) async throws {
        let stack = try self.stack
        let flow = try await PurchaseFlow.make(stack, provider: provider)
        let product = try await flow.subscriptionProduct()
        let url = try await flow.createCheckout(productID: product.productID, variantID: product.variantID)
        let checkout = try checkoutName(provider, url)
        try await faults(stack, #"{"drop_checkouts":["\#(checkout)"]}"#)
        let id = String(checkout.split(separator: ":")[1])
        let paid = try await stack.request(.post, stack.sandbox + "/_sandbox/checkouts/\(provider)/\(id)/pay", json: #"{"email":"\#(flow.email)"}"#)
        #expect(paid.status == 200, "pay answered \(paid.status): \(paid.bodyString)")
        let paidJSON = try #require(try JSONSerialization.jsonObject(with: Data(paid.body)) as? [String: Any])
        let subscriptionID = try #require(
            (paidJSON["subscription_id"] as? Int).map(String.init) ?? paidJSON["subscription_id"] as? String ?? paidJSON["subscription_code"]
                as? String)
        _ = try await stack.request(.post, stack.sandbox + "/_sandbox/deliveries/settle")
        let log = try await stack.request(.get, stack.sandbox + "/_sandbox/deliveries?provider=\(provider)").bodyString
        #expect(log.contains(#""outcome":"dropped""#), "the purchase's webhooks were dropped")
        #expect(try await projectedStatus(stack, provider, subscriptionID) == nil, "no webhook reached the projection")

        _ = try await stack.eventually(timeout: .seconds(60), "the sweep's snapshot projected") {
            try await projectedStatus(stack, provider, subscriptionID) == "active" ? true : nil
        }
        // The email link waits two minutes for an owner to show up (see the README, "Who owns a purchase").
        let (status, _) = try await flow.waitUntil(
            "\(provider) subscription active for its buyer", timeout: .seconds(provider == "paystack" ? 60 : 180)
        ) { seed, _ in
            seed.active
        }
        #expect(status.subscriptionCode == subscriptionID)
        try await faults(stack, "{}")
    }

    /// The provider changes a subscription and no webhook says so.
    @Test(arguments: [("lemonsqueezy", "cancel", "cancelled"), ("paystack", "cancel", "non-renewing")])
    func aSubscriptionChangedAtTheProviderWithNoWebhookConvergesAfterASweep(provider: String, action: String, expected: String) async throws {
        let stack = try self.stack
        let flow = try await PurchaseFlow.make(stack, provider: provider)
        let code = try #require(try await flow.buySubscription().subscriptionCode)
        try await faults(stack, #"{"drop_subscriptions":["\#(provider):\#(code)"]}"#)
        try await flow.sandbox(action, subscription: code)
        let log = try await stack.request(.get, stack.sandbox + "/_sandbox/deliveries?provider=\(provider)").bodyString
        #expect(log.contains(#""outcome":"dropped""#), "the change's webhooks were dropped")
        let (_, raw) = try await flow.waitUntil("\(provider) shows \(expected) after a sweep", timeout: .seconds(60)) { _, raw in
            raw["status"] as? String == expected
        }
        #expect(raw["cancel_at_period_end"] as? Bool == true)
        try await faults(stack, "{}")
    }
}
