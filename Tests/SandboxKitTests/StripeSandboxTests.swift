import Foundation
import Synchronization
import Testing
@testable import SandboxKit

/// The emulated Stripe's API behaviour: pagination, form bodies, idempotency,
/// the hosted page, signed and retried webhooks, the lifecycle controls and faults.
@Suite("Stripe sandbox")
struct StripeSandboxTests {
    @Test func listsPageWithHasMoreAndStartingAfter() async {
        let h = Harness()
        var ids: [String] = []
        var after: String?
        var pages = 0
        repeat {
            let r = await h.stripe("GET", "/prices?limit=2" + (after.map { "&starting_after=\($0)" } ?? ""))
            #expect(r.status == 200)
            let data = r.json?["data"]?.arrayValue ?? []
            ids += data.compactMap { $0["id"]?.stringValue }
            after = r.json?["has_more"]?.boolValue == true ? data.last?["id"]?.stringValue : nil
            pages += 1
        } while after != nil && pages < 10
        #expect(pages == 3)
        #expect(ids.count == 6 && Set(ids).count == 6)
        let recurring = await h.stripe("GET", "/prices?type=recurring&active=true")
        #expect(recurring.json?["data"]?.arrayValue?.count == 3)
        #expect(recurring.json?["has_more"]?.boolValue == false)
        #expect(await h.stripe("GET", "/prices?limit=0").status == 400)
        #expect(await h.stripe("GET", "/prices?starting_after=price_nope").status == 404)
        let active = await h.stripe("GET", "/products?active=true")
        #expect(active.json?["data"]?.arrayValue?.count == 4)
    }

    @Test func aSessionReadsNestedFormParameters() async {
        let h = Harness()
        let r = await h.stripe(
            "POST", "/checkout/sessions",
            form: [
                ("mode", "subscription"), ("line_items[0][price]", "price_SbxPremiumYearly"), ("line_items[0][quantity]", "1"),
                ("success_url", "https://app.example/done"), ("client_reference_id", "user-9"), ("customer_email", "grace@example.com"),
                ("metadata[storefront_user_id]", "user-9"),
                ("metadata[note]", "a b&c"), ("subscription_data[trial_period_days]", "14"),
                ("subscription_data[metadata][storefront_user_id]", "user-9"),
            ])
        #expect(r.status == 200)
        let session = r.json
        #expect(session?["mode"]?.stringValue == "subscription")
        #expect(session?["status"]?.stringValue == "open")
        #expect(session?["payment_status"]?.stringValue == "unpaid")
        #expect(session?["client_reference_id"]?.stringValue == "user-9")
        #expect(session?["metadata"]?["note"]?.stringValue == "a b&c")
        #expect(session?["url"]?.stringValue?.hasPrefix("http://127.0.0.1:8090/checkout/stripe/cs_test_") == true)
        let id = session?["id"]?.stringValue ?? ""
        let paid = await h.control("POST", "/checkouts/stripe/\(id)/pay")
        #expect(paid.status == 200)
        let sub = paid.json?["subscription_id"]?.stringValue ?? ""
        let subscription = await h.stripe("GET", "/subscriptions/\(sub)")
        #expect(subscription.json?["status"]?.stringValue == "trialing")
        #expect(subscription.json?["metadata"]?["storefront_user_id"]?.stringValue == "user-9")
        let trial = (subscription.json?["trial_end"]?.intValue ?? 0) - (subscription.json?["trial_start"]?.intValue ?? 0)
        #expect(trial == 14 * 86_400)
        let completed = await h.stripe("GET", "/checkout/sessions/\(id)")
        #expect(completed.json?["status"]?.stringValue == "complete")
        #expect(completed.json?["payment_status"]?.stringValue == "no_payment_required")
        #expect(completed.json?["subscription"]?.stringValue == sub)
    }

    @Test func anIdempotencyKeyReplaysTheAnswerAndRefusesOtherParameters() async {
        let h = Harness()
        let form = [("mode", "payment"), ("line_items[0][price]", "price_SbxProIcons"), ("success_url", "https://app.example/done")]
        let first = await h.stripe("POST", "/checkout/sessions", form: form, idempotencyKey: "key-1")
        let again = await h.stripe("POST", "/checkout/sessions", form: form, idempotencyKey: "key-1")
        #expect(first.status == 200)
        #expect(again.json?["id"] == first.json?["id"])
        #expect(again.headers["Idempotent-Replayed"] == "true")
        let fresh = await h.stripe("POST", "/checkout/sessions", form: form, idempotencyKey: "key-2")
        #expect(fresh.json?["id"] != first.json?["id"])
        let other = await h.stripe("POST", "/checkout/sessions", form: form + [("client_reference_id", "x")], idempotencyKey: "key-1")
        #expect(other.status == 400)
        #expect(other.json?["error"]?["type"]?.stringValue == "idempotency_error")
        // A cancel repeated with its key changes nothing twice and sends one webhook.
        guard let sub = await h.stripeSubscribe() else { Issue.record("no subscription"); return }
        let mark = await h.mark()
        for _ in 0..<2 {
            let r = await h.stripe("POST", "/subscriptions/\(sub)", form: [("cancel_at_period_end", "true")], idempotencyKey: "cancel-\(sub)")
            #expect(r.json?["cancel_at_period_end"]?.boolValue == true)
        }
        #expect(await h.delivered(after: mark).compactMap(\.stripeEvent) == ["customer.subscription.updated"])
    }

    @Test func theHostedPagePaysAndRedirectsToTheSuccessURL() async {
        let h = Harness()
        guard let id = await h.stripeSession(price: "price_SbxProIcons", mode: "payment") else { Issue.record("no session"); return }
        let page = await h.app.handle(SandboxRequest(method: "GET", target: "/checkout/stripe/\(id)"))
        #expect(page.status == 200)
        #expect(page.text.contains("Pro Icons Pack") && page.text.contains("$9.99") && page.text.contains("Stripe Checkout (sandbox)"))
        let paid = await h.app.handle(
            SandboxRequest(
                method: "POST", target: "/checkout/stripe/\(id)/pay",
                headers: SandboxHeaders([("Content-Type", "application/x-www-form-urlencoded")]),
                body: Array("email=grace%40example.com".utf8)))
        #expect(paid.status == 303)
        #expect(paid.headers["Location"] == "https://app.example/done?s=\(id)")
        let sent = await h.delivered(after: 0)
        #expect(sent.compactMap(\.stripeEvent) == ["checkout.session.completed"])
        let session = sent.first?.json["data"]?["object"]
        #expect(session?["customer_details"]?["email"]?.stringValue == "grace@example.com")
        #expect(session?["customer"]?.isNull == true, "a one-time payment creates no Customer (customer_creation if_required)")
        #expect(session?["payment_intent"]?.stringValue?.hasPrefix("pi_") == true)
        let payment = await h.stripe("GET", "/payment_intents/\(session?["payment_intent"]?.stringValue ?? "")")
        #expect(payment.json?["metadata"]?["storefront_user_id"]?.stringValue == "user-1")
        #expect(payment.json?["amount_received"]?.intValue == 999)
        let again = await h.app.handle(SandboxRequest(method: "POST", target: "/checkout/stripe/\(id)/pay", body: Array("email=a%40b.c".utf8)))
        #expect(again.status == 409)
    }

    /// `Stripe-Signature: t=<unix>,v1=<HMAC-SHA256 of "<t>.<body>">`.
    @Test func webhooksAreSignedOverTimestampAndBody() async throws {
        let h = Harness()
        _ = await h.stripeSubscribe()
        let sent = await h.delivered(after: 0)
        #expect(sent.compactMap(\.stripeEvent) == ["customer.subscription.created", "invoice.paid", "checkout.session.completed"])
        for delivery in sent {
            #expect(delivery.url == "http://receiver/api/webhooks/stripe")
            let header = try #require(delivery.header("Stripe-Signature"))
            let parts = header.split(separator: ",")
            #expect(parts.count == 2 && parts[0].hasPrefix("t=") && parts[1].hasPrefix("v1="))
            let t = String(parts[0].dropFirst(2))
            #expect(Int(t) == Int(h.clock.now.timeIntervalSince1970))
            let expected = FakeHMAC.hex("fake256-", Array(Harness.stripeWebhookSecret.utf8), Array("\(t).".utf8) + delivery.body)
            #expect(String(parts[1].dropFirst(3)) == expected)
        }
    }

    /// Stripe signs each attempt when it is made: a retry hours later carries
    /// a fresh timestamp (a receiver's five-minute tolerance would refuse the first one's).
    @Test func aRetryIsSignedAfreshOnStripesSchedule() async throws {
        let instant = Mutex(Date(timeIntervalSince1970: 1_750_000_000))
        let clock = SandboxClock(
            now: { instant.withLock { $0 } },
            sleep: { duration in
                instant.withLock { $0 = $0.addingTimeInterval(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) }
            })
        let transport = RecordingTransport(statuses: [500, 503])
        let config = SandboxConfiguration(
            stripe: StripeSettings(secretKey: "sk_test_x", webhookSecret: "whsec_x", webhookURL: "http://receiver/stripe"))
        let app = SandboxApp(configuration: config, signer: FakeHMAC.signer, transport: transport, clock: clock)
        var headers = SandboxHeaders([("Authorization", "Bearer sk_test_x")])
        headers.add("Content-Type", "application/x-www-form-urlencoded")
        let created = await app.handle(
            SandboxRequest(
                method: "POST", target: "/stripe/v1/checkout/sessions", headers: headers,
                body: Array("mode=payment&line_items%5B0%5D%5Bprice%5D=price_SbxProIcons&success_url=https%3A%2F%2Fa.example".utf8)))
        let id = created.json?["id"]?.stringValue ?? ""
        _ = await app.handle(
            SandboxRequest(method: "POST", target: "/_sandbox/checkouts/stripe/\(id)/pay", body: Array(#"{"email":"a@b.example"}"#.utf8)))
        await app.settleDeliveries()
        let attempts = await app.deliveries(provider: .stripe)
        #expect(attempts.map(\.attempt) == [1, 2, 3])
        #expect(attempts.map(\.outcome) == [.retrying, .retrying, .delivered])
        let stamps = transport.sent.compactMap { $0.header("Stripe-Signature")?.split(separator: ",").first.map(String.init) }
        #expect(stamps == ["t=1750000000", "t=1750001800", "t=1750005400"], "30 min, then 1 h later")
        #expect(Set(transport.sent.map(\.body)).count == 1, "the same event body every time")
    }

    @Test func aTrialTurnsActiveAtTheFirstCharge() async {
        let h = Harness()
        guard let sub = await h.stripeSubscribe(trialDays: 7) else { Issue.record("no subscription"); return }
        let created = await h.delivered(after: 0)
        #expect(created.first?.json["data"]?["object"]?["status"]?.stringValue == "trialing")
        let invoice = created.first { $0.stripeEvent == "invoice.paid" }?.json["data"]?["object"]
        #expect(invoice?["amount_paid"]?.intValue == 0)
        #expect(invoice?["billing_reason"]?.stringValue == "subscription_create")
        let mark = await h.mark()
        #expect(await h.control("POST", "/stripe/subscriptions/\(sub)/renew").status == 200)
        let renewed = await h.delivered(after: mark)
        #expect(renewed.compactMap(\.stripeEvent) == ["invoice.paid", "customer.subscription.updated"])
        #expect(renewed[0].json["data"]?["object"]?["amount_paid"]?.intValue == 499)
        #expect(renewed[0].json["data"]?["object"]?["billing_reason"]?.stringValue == "subscription_cycle")
        let update = renewed[1].json["data"]
        #expect(update?["object"]?["status"]?.stringValue == "active")
        #expect(update?["previous_attributes"]?["status"]?.stringValue == "trialing")
    }

    @Test func aFailedRenewalGoesPastDueThenUnpaidOrRecovers() async {
        let h = Harness()
        guard let sub = await h.stripeSubscribe() else { Issue.record("no subscription"); return }
        var mark = await h.mark()
        #expect(await h.control("POST", "/stripe/subscriptions/\(sub)/payment_failed").status == 200)
        var sent = await h.delivered(after: mark)
        #expect(sent.compactMap(\.stripeEvent) == ["invoice.payment_failed", "customer.subscription.updated"])
        #expect(sent[0].json["data"]?["object"]?["next_payment_attempt"]?.intValue != nil)
        #expect(sent[1].json["data"]?["object"]?["status"]?.stringValue == "past_due")
        mark = await h.mark()
        #expect(await h.control("POST", "/stripe/subscriptions/\(sub)/unpaid").status == 200)
        sent = await h.delivered(after: mark)
        #expect(sent.map { $0.json["data"]?["object"]?["status"]?.stringValue } == ["unpaid"])
        mark = await h.mark()
        #expect(await h.control("POST", "/stripe/subscriptions/\(sub)/recover").status == 200)
        sent = await h.delivered(after: mark)
        #expect(sent.compactMap(\.stripeEvent) == ["invoice.paid", "customer.subscription.updated"])
        #expect(sent[1].json["data"]?["object"]?["status"]?.stringValue == "active")
        #expect(await h.control("POST", "/stripe/subscriptions/\(sub)/recover").status == 422)
    }

    @Test func pauseAndResumeSendTheirOwnEvents() async {
        let h = Harness()
        guard let sub = await h.stripeSubscribe(trialDays: 3) else { Issue.record("no subscription"); return }
        let mark = await h.mark()
        #expect(await h.control("POST", "/stripe/subscriptions/\(sub)/pause").status == 200)
        #expect(await h.control("POST", "/stripe/subscriptions/\(sub)/unpause").status == 200)
        let sent = await h.delivered(after: mark)
        #expect(
            sent.compactMap(\.stripeEvent) == [
                "customer.subscription.paused", "customer.subscription.updated", "customer.subscription.resumed", "customer.subscription.updated",
            ])
        #expect(sent.map { $0.json["data"]?["object"]?["status"]?.stringValue } == ["paused", "paused", "active", "active"])
        #expect(await h.control("POST", "/stripe/subscriptions/\(sub)/unpause").status == 422)
    }

    @Test func cancelAndResumeThroughTheAPIThenDelete() async {
        let h = Harness()
        guard let sub = await h.stripeSubscribe() else { Issue.record("no subscription"); return }
        let mark = await h.mark()
        let cancelled = await h.stripe("POST", "/subscriptions/\(sub)", form: [("cancel_at_period_end", "true")])
        #expect(cancelled.json?["cancel_at_period_end"]?.boolValue == true)
        #expect(cancelled.json?["status"]?.stringValue == "active")
        #expect(cancelled.json?["cancel_at"]?.intValue == cancelled.json?["items"]?["data"]?[0]?["current_period_end"]?.intValue)
        let resumed = await h.stripe("POST", "/subscriptions/\(sub)", form: [("cancel_at_period_end", "false")])
        #expect(resumed.json?["cancel_at_period_end"]?.boolValue == false)
        #expect(resumed.json?["cancel_at"]?.isNull == true)
        let deleted = await h.stripe("DELETE", "/subscriptions/\(sub)")
        #expect(deleted.json?["status"]?.stringValue == "canceled")
        #expect(await h.stripe("POST", "/subscriptions/\(sub)", form: [("cancel_at_period_end", "true")]).status == 400)
        let sent = await h.delivered(after: mark)
        #expect(
            sent.compactMap(\.stripeEvent) == ["customer.subscription.updated", "customer.subscription.updated", "customer.subscription.deleted"])
        #expect(sent[0].json["data"]?["previous_attributes"]?["cancel_at_period_end"]?.boolValue == false)
    }

    @Test func refundsAccumulateAndDisputesCloseWonOrLost() async {
        let h = Harness()
        guard let session = await h.stripeSession(price: "price_SbxProIcons", mode: "payment") else { Issue.record("no session"); return }
        let paid = await h.control("POST", "/checkouts/stripe/\(session)/pay")
        let pi = paid.json?["payment_intent_id"]?.stringValue ?? ""
        let mark = await h.mark()
        #expect(await h.control("POST", "/stripe/payments/\(pi)/refund", body: ["amount": 300]).status == 200)
        #expect(await h.control("POST", "/stripe/payments/\(pi)/refund", body: ["amount": 700]).status == 422)
        #expect(await h.control("POST", "/stripe/payments/\(pi)/refund").status == 200)
        #expect(await h.control("POST", "/stripe/payments/\(pi)/refund").status == 422)
        let refunds = await h.delivered(after: mark)
        #expect(refunds.map { $0.json["data"]?["object"]?["amount_refunded"]?.intValue } == [300, 999])
        #expect(refunds.map { $0.json["data"]?["object"]?["refunded"]?.boolValue } == [false, true])
        #expect(refunds[1].json["data"]?["previous_attributes"]?["amount_refunded"]?.intValue == 300)

        guard let other = await h.stripeSession(price: "price_SbxWallpapers", mode: "payment") else { Issue.record("no session"); return }
        let charge = await h.control("POST", "/checkouts/stripe/\(other)/pay").json?["payment_intent_id"]?.stringValue ?? ""
        let before = await h.mark()
        #expect(await h.control("POST", "/stripe/payments/\(charge)/dispute", body: ["action": "close", "status": "won"]).status == 422)
        #expect(await h.control("POST", "/stripe/payments/\(charge)/dispute", body: ["action": "create"]).status == 200)
        #expect(await h.control("POST", "/stripe/payments/\(charge)/dispute", body: ["action": "create"]).status == 409)
        #expect(await h.control("POST", "/stripe/payments/\(charge)/dispute", body: ["action": "close", "status": "won"]).status == 200)
        let disputes = await h.delivered(after: before)
        #expect(disputes.compactMap(\.stripeEvent) == ["charge.dispute.created", "charge.dispute.closed"])
        #expect(disputes.map { $0.json["data"]?["object"]?["status"]?.stringValue } == ["needs_response", "won"])
        #expect(disputes[0].json["data"]?["object"]?["payment_intent"]?.stringValue == charge)
    }

    @Test func faultsAndRateLimitsApplyToStripe() async {
        let h = Harness()
        guard let sub = await h.stripeSubscribe() else { Issue.record("no subscription"); return }
        #expect(
            await h.control(
                "POST", "/faults", body: ["drop_subscriptions": .array([.string("stripe:\(sub)")]), "api_429_next": 1, "api_429_provider": "stripe"]
            ).status == 200)
        let limited = await h.stripe("GET", "/subscriptions/\(sub)")
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"] == "1")
        #expect(limited.json?["error"]?["code"]?.stringValue == "rate_limit")
        #expect(await h.stripe("GET", "/subscriptions/\(sub)").status == 200)
        let mark = await h.mark()
        #expect(await h.control("POST", "/stripe/subscriptions/\(sub)/renew").status == 200)
        #expect(await h.delivered(after: mark).isEmpty)
        let dropped = await h.app.deliveries(provider: .stripe).filter { $0.outcome == .dropped }
        #expect(dropped.map(\.eventName) == ["invoice.paid", "customer.subscription.updated"])
        let stats = await h.control("GET", "/api-requests")
        #expect(stats.json?["stripe"]?["rate_limited"]?.intValue == 1)
        #expect(stats.json?["stripe"]?["routes"]?["POST /checkout/sessions"]?.intValue == 1)
        #expect(stats.json?["stripe"]?["routes"]?["GET /subscriptions/:id"]?.intValue == 2)
    }
}
