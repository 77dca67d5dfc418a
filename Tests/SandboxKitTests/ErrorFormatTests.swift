import Testing
@testable import SandboxKit

@Suite struct ErrorFormatTests {
    @Test func lemonSqueezyRejectsMissingAndWrongKeys() async throws {
        let h = Harness()
        for key in [nil, "wrong"] as [String?] {
            let r = await h.ls("GET", "/products", key: key)
            #expect(r.status == 401)
            let error = try #require(r.json?["errors"]?[0])
            #expect(error["status"]?.stringValue == "401")
            #expect(error["title"]?.stringValue == "Unauthorized")
            #expect(error["detail"]?.stringValue?.isEmpty == false)
        }
    }

    @Test func paystackRejectsMissingAndWrongKeys() async throws {
        let h = Harness()
        for key in [nil, "sk_test_wrong"] as [String?] {
            let r = await h.ps("GET", "/plan", key: key)
            #expect(r.status == 401)
            #expect(r.json == ["status": false, "message": "Invalid key"])
        }
    }

    @Test func notFoundAndValidationFormats() async throws {
        let h = Harness()
        let missing = await h.ls("GET", "/subscriptions/999")
        #expect(missing.status == 404)
        #expect(missing.json?["errors"]?[0]?["status"]?.stringValue == "404")
        let noVariant = await h.ls(
            "POST", "/checkouts",
            body: ["data": ["type": "checkouts", "attributes": [:], "relationships": ["store": ["data": ["type": "stores", "id": "1"]]]]])
        #expect(noVariant.status == 422)
        #expect(noVariant.json?["errors"]?[0]?["source"]?["pointer"]?.stringValue == "/data/relationships/variant")
        let draft = await h.ls(
            "POST", "/checkouts",
            body: [
                "data": [
                    "type": "checkouts",
                    "relationships": ["store": ["data": ["type": "stores", "id": "1"]], "variant": ["data": ["type": "variants", "id": "4"]]],
                ]
            ])
        #expect(draft.status == 422)
        let plan = await h.ps("GET", "/plan/PLN_missing")
        #expect(plan.status == 404)
        #expect(plan.json?["status"] == .bool(false))
        #expect(await h.ps("GET", "/customer/nobody@example.com").status == 404)
        #expect(await h.ps("GET", "/subscription/SUB_missing").json?["message"]?.stringValue == "Subscription not found")
    }

    @Test func duplicateReferenceIsRejected() async throws {
        let h = Harness()
        let body: JSONValue = ["email": "a@example.com", "amount": 5000, "reference": "order-1"]
        let first = await h.ps("POST", "/transaction/initialize", body: body)
        #expect(first.status == 200)
        #expect(first.json?["data"]?["reference"]?.stringValue == "order-1")
        #expect(first.json?["data"]?["authorization_url"]?.stringValue?.hasPrefix("http://127.0.0.1:8090/checkout/paystack/") == true)
        let second = await h.ps("POST", "/transaction/initialize", body: body)
        #expect(second.status == 400)
        #expect(second.json?["message"]?.stringValue == "Duplicate Transaction Reference")
        #expect(second.json?["code"]?.stringValue == "duplicate_reference")
        let unpaid = try #require(await h.ps("GET", "/transaction/verify/order-1").json?["data"])
        #expect(unpaid["status"]?.stringValue == "abandoned")
        #expect(await h.ps("GET", "/transaction/verify/nope").status == 400)
    }

    @Test func rateLimitAnswers429InEachFormat() async throws {
        let h = Harness(rateLimit: RateLimitSettings(limit: 2, windowSeconds: 60))
        #expect(await h.ls("GET", "/products").status == 200)
        let second = await h.ls("GET", "/products")
        #expect(second.headers["X-Ratelimit-Remaining"] == "0")
        let limited = await h.ls("GET", "/products")
        #expect(limited.status == 429)
        #expect(limited.headers["retry-after"] == "60")
        #expect(limited.json?["errors"]?[0]?["status"]?.stringValue == "429")
        _ = await h.ps("GET", "/plan")
        _ = await h.ps("GET", "/plan")
        let ps = await h.ps("GET", "/plan")
        #expect(ps.status == 429)
        #expect(ps.json?["code"]?.stringValue == "rate_limited")
        #expect(ps.headers["Retry-After"] != nil)
        h.clock.advance(days: 1)
        #expect(await h.ls("GET", "/products").status == 200)
    }
}
