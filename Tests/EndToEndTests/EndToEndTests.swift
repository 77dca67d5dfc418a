@testable import SeedModels
import Foundation
import HTTPClient
import Postgres
import Testing

/// The product, end to end through the gateway with real processes: list,
/// checkout, pay in the sandbox, status, cancel — once per provider.
@Suite(.serialized, .liveStack()) struct EndToEndTests {
    var stack: LiveStack { get throws { try LiveStack.required() } }

    @Test(arguments: ["lemonsqueezy", "paystack", "stripe"])
    func purchaseThenCancel(provider: String) async throws {
        let stack = try self.stack
        let flow = try await PurchaseFlow.make(stack, provider: provider)
        let (before, beforeRaw) = try await flow.status()
        #expect(!before.active)
        #expect(beforeRaw["pending_checkout"] is NSNull, "no checkout opened yet")

        let product = try await flow.subscriptionProduct()
        let url = try await flow.createCheckout(productID: product.productID, variantID: product.variantID)
        // The checkout record reaches the projection through the broker, so wait for it.
        _ = try await flow.waitUntil("the opened checkout shows as pending") { _, raw in raw["pending_checkout"] is [String: Any] }

        try await flow.pay(checkoutURL: url)
        let (active, raw) = try await flow.waitUntil("\(provider) subscription active") { seed, _ in seed.active }
        let code = try #require(active.subscriptionCode)
        #expect(active.planName?.isEmpty == false)
        #expect(raw["provider"] as? String == provider)
        #expect(raw["pending_checkout"] is NSNull, "the payment cleared the pending checkout")

        let cancelled = try await flow.cancel(code: code, emailToken: active.emailToken)
        #expect(cancelled.status == 200, "cancel answered \(cancelled.status): \(cancelled.bodyString)")
        let (after, afterRaw) = try await flow.waitUntil("\(provider) cancellation projected") { _, raw in
            raw["cancel_at_period_end"] as? Bool == true
        }
        // Every provider keeps access until the paid period ends, in its own words.
        #expect(after.active)
        let statuses = ["lemonsqueezy": "cancelled", "paystack": "non-renewing", "stripe": "active"]
        #expect(afterRaw["status"] as? String == statuses[provider])

        // A fresh link to the provider's own page for this subscription.
        let portal = try await stack.request(.get, stack.gateway + "/api/subscription/portal?subscription_code=\(code)", token: flow.token)
        #expect(portal.status == 200, "portal answered \(portal.status): \(portal.bodyString)")
        let link = try #require(try JSONSerialization.jsonObject(with: Data(portal.body)) as? [String: Any])
        #expect((link["url"] as? String)?.hasPrefix("http") == true, "\(link)")
    }

    /// A one-time product bought through the provider's hosted checkout
    /// grants its entitlement as a purchase, with no end.
    @Test(arguments: ["lemonsqueezy", "stripe"])
    func aOneTimePurchaseGrantsItsEntitlement(provider: String) async throws {
        let stack = try self.stack
        let flow = try await PurchaseFlow.make(stack, provider: provider)
        let product = try await flow.oneTimeProduct()
        try await flow.pay(checkoutURL: try await flow.createCheckout(productID: product.productID, variantID: product.variantID))
        let granted = try await stack.eventually(timeout: .seconds(30), "the \(provider) purchase granted") {
            try await flow.entitlements().first { $0["is_active"] as? Bool == true }
        }
        #expect(granted["source"] as? String == "purchase" && granted["expires_at"] is NSNull, "\(granted)")
        #expect(granted["provider"] as? String == provider)
    }

    /// Stripe's cancel at period end is undone through the API and answered
    /// with what Stripe reports; another user can neither cancel nor resume it.
    @Test func aStripeSubscriptionCancelledAndResumedStaysTheBuyers() async throws {
        let stack = try self.stack
        let owner = try await PurchaseFlow.make(stack, provider: "stripe")
        let code = try #require(try await owner.buySubscription().subscriptionCode)
        let intruder = try await PurchaseFlow.make(stack, provider: "stripe")
        #expect([403, 404].contains(try await intruder.cancel(code: code, emailToken: nil).status), "another user's cancel")
        #expect(try await owner.cancel(code: code, emailToken: nil).status == 200)
        _ = try await owner.waitUntil("stripe cancellation projected") { _, raw in raw["cancel_at_period_end"] as? Bool == true }
        #expect([403, 404].contains(try await intruder.resume(code: code).status), "another user's resume")
        let resumed = try await owner.resume(code: code)
        #expect(resumed.status == 200, "resume answered \(resumed.status): \(resumed.bodyString)")
        let (after, raw) = try await owner.waitUntil("stripe resume projected") { _, raw in raw["cancel_at_period_end"] as? Bool == false }
        #expect(after.active && raw["status"] as? String == "active")
    }

    @Test func duplicatedAndShuffledWebhooksEndInTheSameRowsAsACleanRun() async throws {
        let stack = try self.stack
        let clean = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        _ = try await clean.buySubscription()

        let faults = #"{"duplicate_next":20,"shuffle_next_batch":true}"#
        #expect(try await stack.request(.post, stack.sandbox + "/_sandbox/faults", json: faults).status == 200)
        let faulty = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        _ = try await faulty.buySubscription()
        // Every delivery, duplicates included, answered by the receiver: all of them are in the topic.
        #expect(try await stack.request(.post, stack.sandbox + "/_sandbox/deliveries/settle").status == 200)

        let snapshots = {
            try await stack.withDatabase { pool in
                try await (
                    ProjectionSnapshot.of(appUserID: clean.subject, pool: pool),
                    ProjectionSnapshot.of(appUserID: faulty.subject, pool: pool)
                )
            }
        }
        // A probe that fails (the stack's database busy on a loaded machine) is
        // tried again; the last failure is reported if the rows never match.
        var lastProblem = "no probe answered"
        // The probe's type is spelled out: with `converged` an Optional, Swift
        // inferred the wait's value as an Optional too, so the probe's "not yet"
        // (nil) became a found `.some(nil)` and the wait ended after one probe.
        // That, not the projection, failed this test in fresh-clone runs
        // (closing note of 2 December 2026, session 11).
        func matchingRows() async -> (ProjectionSnapshot, ProjectionSnapshot)? {
            do {
                let rows = try await snapshots()
                lastProblem = "clean \(rows.0) vs duplicated+shuffled \(rows.1)"
                return rows.0 == rows.1 ? rows : nil
            } catch {
                lastProblem = "the rows could not be read: \(error)"
                return nil
            }
        }
        let converged = try? await stack.eventually(
            timeout: .seconds(60), "the duplicated run's rows to match the clean run's", matchingRows)
        let trail = converged == nil ? try await Self.orderTrail(stack, appUserID: faulty.subject) : ""
        #expect(converged != nil, "never converged; last: \(lastProblem); the duplicated run's order: \(trail)")
        // A duplicate that slipped past the dedup key would add a row after convergence, never remove one.
        try await Task.sleep(for: .seconds(1))
        let rows = try await snapshots()
        #expect(rows.0.subscriptions.count == 1)
        #expect(
            rows.0.subscriptions.first?.loggedWebhooks == 2,
            "subscription_created and subscription_payment_success (an order names no subscription)")
        #expect(rows.0 == rows.1, "clean \(rows.0) vs duplicated+shuffled \(rows.1)")
    }

    /// What the projection knows of the order behind `appUserID`'s
    /// subscription, whoever owns it: its row, every piece of ownership
    /// evidence, and every logged event naming it (for a failure message).
    static func orderTrail(_ stack: LiveStack, appUserID: String) async throws -> String {
        try await stack.withDatabase { pool in
            var lines: [String] = []
            let rows = try await pool.query(
                """
                SELECT o.order_id, o.app_user_id, o.status, o.subscription_id,
                    (SELECT string_agg(po.source || ':' || po.app_user_id, ',') FROM purchase_owners po
                     WHERE po.provider = o.provider AND po.purchase_type = 'order' AND po.purchase_id = o.order_id),
                    (SELECT string_agg(e.event_name || '/' || COALESCE(e.app_user_id, '-'), ',') FROM billing_events e
                     WHERE e.provider = o.provider AND e.order_id = o.order_id)
                FROM orders o JOIN subscriptions s ON s.provider = o.provider AND s.order_id = o.order_id
                WHERE s.app_user_id = \(appUserID)
                """)
            for row in rows {
                let (order, owner, status, subscription, evidence, events) =
                    try row.decode((String, String?, String, String?, String?, String?).self)
                lines.append(
                    "order \(order) owner \(owner ?? "none") status \(status) subscription \(subscription ?? "none") "
                        + "evidence [\(evidence ?? "")] events [\(events ?? "")]")
            }
            let checkouts = try await pool.query(
                "SELECT count(*), bool_or(email_verified) FROM checkouts WHERE app_user_id = \(appUserID)")
            if let row = checkouts.first {
                let (count, verified) = try row.decode((Int, Bool?).self)
                lines.append("checkouts \(count), email verified \(verified.map(String.init) ?? "none")")
            }
            return lines.isEmpty ? "no order row joins the subscription" : lines.joined(separator: "; ")
        }
    }

    @Test func statusAndCancelRefuseMissingForgedAndForeignTokens() async throws {
        let stack = try self.stack
        let owner = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        let bought = try await owner.buySubscription()
        let code = try #require(bought.subscriptionCode)

        let noToken = try await stack.request(.get, stack.gateway + "/api/subscription/status")
        #expect(noToken.status == 401)
        let forged = try await stack.request(
            .get, stack.gateway + "/api/subscription/status",
            token: ForgedToken.make(subject: owner.subject, email: owner.email))
        #expect(forged.status == 401)
        let cancelWithoutToken = try await stack.request(
            .post, stack.gateway + "/api/subscription/cancel",
            json: #"{"subscription_code":"\#(code)"}"#)
        #expect(cancelWithoutToken.status == 401)

        let intruder = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        let refused = try await intruder.cancel(code: code, emailToken: nil)
        #expect([403, 404].contains(refused.status), "another user's cancel answered \(refused.status)")
        let (stillActive, raw) = try await owner.status()
        #expect(stillActive.active && raw["cancel_at_period_end"] as? Bool == false)
    }
}
