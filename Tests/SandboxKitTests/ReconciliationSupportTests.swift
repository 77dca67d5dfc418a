import Testing
@testable import SandboxKit

/// What the reconciler needs from the sandbox: list and fetch endpoints in
/// the providers' shapes, a fault that drops one subscription's webhooks, a
/// 429 fault, bulk seeding and request counts.
@Suite struct ReconciliationSupportTests {
    @Test func paystackListsTransactionsNewestFirstWithTheDocumentedMeta() async throws {
        let h = Harness()
        let (first, _) = try #require(await h.psSubscribe(email: "a@example.com"))
        let (second, _) = try #require(await h.psSubscribe(email: "b@example.com"))
        _ = await h.ps("POST", "/transaction/initialize", body: ["email": "c@example.com", "amount": 5000]) // abandoned
        let page = try #require(await h.ps("GET", "/transaction?perPage=2&page=1").json)
        #expect(page["status"] == .bool(true) && page["message"]?.stringValue == "Transactions retrieved")
        let meta = try #require(page["meta"])
        #expect(meta["total"]?.intValue == 3 && meta["perPage"]?.intValue == 2 && meta["page"]?.intValue == 1 && meta["pageCount"]?.intValue == 2)
        #expect(meta["skipped"]?.intValue == 0 && meta["total_volume"]?.intValue != nil)
        let references = page["data"]?.arrayValue?.compactMap { $0["reference"]?.stringValue }
        #expect(references?.count == 2 && references?.last == second)
        // Each item is the transaction as verify answers it.
        let verified = await h.ps("GET", "/transaction/verify/\(second)").json?["data"]
        #expect(page["data"]?[1] == verified)
        let paid = try #require(await h.ps("GET", "/transaction?status=success").json?["data"]?.arrayValue)
        #expect(paid.compactMap { $0["reference"]?.stringValue } == [second, first])
        #expect(await h.ps("GET", "/transaction?perPage=2&page=2").json?["data"]?.arrayValue?.count == 1)
    }

    @Test func lemonSqueezyListsFilterByStoreAndPageWithMetaAndLinks() async throws {
        let h = Harness()
        _ = await h.control("POST", "/lemonsqueezy/seed", body: ["subscriptions": 3])
        let page = try #require(await h.ls("GET", "/subscriptions?filter%5Bstore_id%5D=1&page%5Bnumber%5D=1&page%5Bsize%5D=2").json)
        #expect(page["meta"]?["page"]?["lastPage"]?.intValue == 2 && page["meta"]?["page"]?["total"]?.intValue == 3)
        #expect(page["links"]?["next"]?.stringValue?.contains("page%5Bnumber%5D=2") == true)
        #expect(page["data"]?.arrayValue?.map { $0["id"]?.stringValue } == ["3", "2"], "newest first")
        let last = try #require(await h.ls("GET", "/subscriptions?filter%5Bstore_id%5D=1&page%5Bnumber%5D=2&page%5Bsize%5D=2").json)
        #expect(last["links"]?["next"] == nil)
        #expect(await h.ls("GET", "/subscriptions?filter%5Bstore_id%5D=2").json?["data"]?.arrayValue?.isEmpty == true)
        #expect(await h.ls("GET", "/orders?filter%5Bstore_id%5D=1").json?["meta"]?["page"]?["total"]?.intValue == 3)
    }

    @Test func theDropFaultSwallowsEveryWebhookOfOneSubscriptionAndNoOther() async throws {
        let h = Harness()
        let dropped = try #require(await h.lsSubscribe())
        let kept = try #require(await h.lsSubscribe())
        let before = await h.mark()
        _ = await h.control("POST", "/faults", body: ["drop_subscriptions": [.string("lemonsqueezy:\(dropped)")]])
        _ = await h.control("POST", "/lemonsqueezy/subscriptions/\(dropped)/cancel")
        _ = await h.control("POST", "/lemonsqueezy/subscriptions/\(kept)/cancel")
        let sent = await h.delivered(after: before)
        #expect(
            sent.allSatisfy {
                $0.json["data"]?["id"]?.stringValue != String(dropped) && $0.json["data"]?["attributes"]?["subscription_id"]?.intValue != dropped
            })
        #expect(sent.contains { $0.lsEvent == "subscription_cancelled" && $0.json["data"]?["id"]?.stringValue == String(kept) })
        let log = await h.app.deliveries(provider: .lemonSqueezy).filter { $0.outcome == .dropped }
        #expect(
            log.map(\.eventName) == ["subscription_cancelled", "subscription_updated"] && log.allSatisfy { $0.attempt == 1 },
            "dropped once, never retried")
        // The provider itself changed: the API shows it.
        #expect(await h.ls("GET", "/subscriptions/\(dropped)").json?["data"]?["attributes"]?["status"]?.stringValue == "cancelled")
    }

    @Test func theDropFaultCanNameACheckoutBeforeItIsPaid() async throws {
        let h = Harness()
        let checkout = try #require(await h.lsCheckout(variant: 2))
        _ = await h.control("POST", "/faults", body: ["drop_checkouts": [.string("lemonsqueezy:\(checkout)")]])
        _ = await h.control("POST", "/checkouts/lemonsqueezy/\(checkout)/pay")
        #expect(await h.delivered(after: 0).isEmpty, "order_created, subscription_created and the payment all dropped")
        #expect(await h.app.deliveries().map(\.outcome) == [.dropped, .dropped, .dropped])

        let access = try #require(
            await h.ps("POST", "/transaction/initialize", body: ["email": "p@example.com", "amount": "1000", "plan": "PLN_sbxpremmonth01"])
                .json?["data"]?["access_code"]?.stringValue)
        _ = await h.control("POST", "/faults", body: ["drop_checkouts": [.string("paystack:\(access)")]])
        let paid = await h.control("POST", "/checkouts/paystack/\(access)/pay")
        let code = try #require(paid.json?["subscription_code"]?.stringValue)
        _ = await h.control("POST", "/paystack/subscriptions/\(code)/cancel")
        #expect(await h.delivered(after: 0).isEmpty, "charge.success, subscription.create and not_renew dropped")
        #expect(await h.control("POST", "/faults", body: ["drop_checkouts": ["nonsense"]]).status == 400)
    }

    @Test func the429FaultRefusesTheNextRequestsWithRetryAfterInEachProvidersFormat() async throws {
        let h = Harness()
        _ = await h.control("POST", "/faults", body: ["api_429_next": 2, "api_retry_after_seconds": 7])
        let ls = await h.ls("GET", "/products")
        #expect(ls.status == 429 && ls.headers["Retry-After"] == "7")
        #expect(ls.json?["errors"]?[0]?["status"]?.stringValue == "429")
        let ps = await h.ps("GET", "/plan")
        #expect(ps.status == 429 && ps.headers["Retry-After"] == "7")
        #expect(ps.json?["code"]?.stringValue == "rate_limited" && ps.json?["status"] == .bool(false))
        #expect(await h.ps("GET", "/plan").status == 200)
        let stats = try #require(await h.control("GET", "/api-requests").json)
        #expect(stats["lemonsqueezy"]?["total"]?.intValue == 1 && stats["lemonsqueezy"]?["rate_limited"]?.intValue == 1)
        #expect(stats["paystack"]?["routes"]?["GET /plan"]?.intValue == 2)
        #expect(await h.control("GET", "/faults").json?["api_429_next"]?.intValue == 0)
    }

    @Test func aRunTimeRateLimitReplacesTheStartUpOne() async throws {
        let h = Harness()
        _ = await h.control("POST", "/faults", body: ["api_rate_limit": ["limit": 2, "window_seconds": 60], "api_429_provider": "paystack"])
        #expect(await h.ps("GET", "/plan").status == 200)
        #expect(await h.ps("GET", "/plan").status == 200)
        let refused = await h.ps("GET", "/plan")
        #expect(refused.status == 429 && Int(refused.headers["Retry-After"] ?? "") ?? 0 > 0)
        _ = await h.control("POST", "/faults", body: [:])
        #expect(await h.ps("GET", "/plan").status == 200)
    }

    @Test func seedingCreatesPaidSubscriptionsEachWithItsOwnCustomer() async throws {
        let h = Harness()
        let ls = try #require(await h.control("POST", "/lemonsqueezy/seed", body: ["subscriptions": 5]).json)
        #expect(ls["created"]?.intValue == 5 && ls["webhooks"]?.intValue == 0)
        let ps = try #require(await h.control("POST", "/paystack/seed", body: ["subscriptions": 4, "webhooks": true]).json)
        #expect(ps["created"]?.intValue == 4 && ps["webhooks"]?.intValue == 8)
        let code = try #require(ps["last"]?.stringValue)
        let subscription = try #require(await h.ps("GET", "/subscription/\(code)").json?["data"])
        #expect(subscription["status"]?.stringValue == "active")
        let customers = await h.ps("GET", "/subscription").json?["data"]?.arrayValue?.compactMap { $0["customer"]?["customer_code"]?.stringValue }
        #expect(Set(customers ?? []).count == 4)
        #expect(await h.ls("GET", "/subscriptions").json?["meta"]?["page"]?["total"]?.intValue == 5)
        #expect(await h.control("POST", "/lemonsqueezy/seed", body: ["subscriptions": 0]).status == 422)
    }
}
