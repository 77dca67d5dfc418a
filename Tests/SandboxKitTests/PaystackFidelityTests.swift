import Testing
@testable import SandboxKit

/// The Paystack behaviours a client must not get wrong because the sandbox was
/// kinder than the real provider: authorizations, customers, metadata, enable.
@Suite struct PaystackFidelityTests {
    @Test func planCheckoutChargeAndSubscriptionShareOneFreshAuthorization() async throws {
        let h = Harness()
        let (reference, code) = try #require(await h.psSubscribe(metadata: ["user_id": "42", "plan_key": "premium"]))
        let sent = h.transport.sent
        #expect(sent.map(\.psEvent) == ["charge.success", "subscription.create"])
        let charge = try #require(sent[0].json["data"])
        let authorization = try #require(charge["authorization"])
        let authCode = try #require(authorization["authorization_code"]?.stringValue)
        #expect(authCode.hasPrefix("AUTH_") && authCode.count == 15)
        #expect(authorization["signature"]?.stringValue?.hasPrefix("SIG_") == true)
        #expect(authorization["last4"]?.stringValue == "4081")
        #expect(authorization["brand"]?.stringValue == "visa")
        #expect(authorization["card_type"]?.stringValue == "visa ")
        #expect(authorization["reusable"] == .bool(true))
        #expect(charge["domain"]?.stringValue == "test")
        #expect(charge["metadata"] == ["user_id": "42", "plan_key": "premium"])

        // Paystack creates the subscription from the transaction's authorization.
        let created = try #require(sent[1].json["data"])
        #expect(created["authorization"] == authorization)
        #expect(created["metadata"] == nil)
        let fetched = try #require(await h.ps("GET", "/subscription/\(code)").json?["data"])
        #expect(fetched["authorization"] == authorization)
        let listed = try #require(await h.ps("GET", "/subscription").json?["data"]?[0])
        #expect(listed["authorization"] == authorization)
        #expect(await h.ps("GET", "/transaction/verify/\(reference)").json?["data"]?["authorization"] == authorization)
    }

    @Test func sameEmailReusesTheCustomerButNotTheAuthorizationCode() async throws {
        let h = Harness()
        _ = try #require(await h.psSubscribe(email: "payer@example.com", metadata: ["user_id": "1"]))
        _ = try #require(await h.psSubscribe(plan: "PLN_sbxbasicmonth1", email: "Payer@Example.com", metadata: ["user_id": "2"]))
        _ = try #require(await h.psSubscribe(email: "someone.else@example.com", metadata: ["user_id": "3"]))
        let charges = h.transport.sent.filter { $0.psEvent == "charge.success" }.compactMap { $0.json["data"] }
        #expect(charges.count == 3)
        #expect(charges.map { $0["metadata"]?["user_id"]?.stringValue } == ["1", "2", "3"])
        let customers = charges.map { $0["customer"]?["customer_code"]?.stringValue }
        #expect(customers[0] != nil && customers[0] == customers[1])
        #expect(customers[2] != customers[0])
        let codes = charges.compactMap { $0["authorization"]?["authorization_code"]?.stringValue }
        #expect(Set(codes).count == 3)
        // One card per customer: the signature, not the code, is what stays the same.
        let signatures = charges.map { $0["authorization"]?["signature"]?.stringValue }
        #expect(signatures[0] != nil && signatures[0] == signatures[1])
        #expect(signatures[2] != signatures[0])

        let customer = try #require(await h.ps("GET", "/customer/payer@example.com").json?["data"])
        #expect(customer["authorizations"]?.arrayValue?.compactMap { $0["authorization_code"]?.stringValue } == Array(codes.prefix(2)))
        #expect(customer["subscriptions"]?.arrayValue?.count == 2)
    }

    @Test func metadataIsEchoedAsGivenAndSubscriptionEventsHaveNone() async throws {
        let h = Harness()
        let metadata: JSONValue = [
            "user_id": "u-9", "custom_fields": [["display_name": "Plan", "variable_name": "plan", "value": "premium"]], "count": 3,
        ]
        let (_, code) = try #require(await h.psSubscribe(metadata: metadata))
        #expect(h.transport.sent.first?.json["data"]?["metadata"] == metadata)
        let token = try #require(await h.ps("GET", "/subscription/\(code)").json?["data"]?["email_token"]?.stringValue)
        let mark = await h.mark()
        _ = await h.ps("POST", "/subscription/disable", body: ["code": .string(code), "token": .string(token)])
        _ = await h.control("POST", "/paystack/subscriptions/\(code)/expire")
        let later = await h.delivered(after: mark)
        #expect(later.map(\.psEvent) == ["subscription.not_renew", "subscription.disable"])
        for event in later + h.transport.sent.filter({ $0.psEvent == "subscription.create" }) {
            #expect(event.json["data"]?["metadata"] == nil, "\(event.psEvent ?? "?") carries metadata")
        }
    }

    @Test func enableSendsNoWebhookButFetchShowsItActive() async throws {
        let h = Harness()
        let (_, code) = try #require(await h.psSubscribe())
        let before = try #require(await h.ps("GET", "/subscription/\(code)").json?["data"])
        let token = try #require(before["email_token"]?.stringValue)
        let nextPayment = try #require(before["next_payment_date"]?.stringValue)
        var mark = await h.mark()

        _ = await h.ps("POST", "/subscription/disable", body: ["code": .string(code), "token": .string(token)])
        let notRenew = await h.delivered(after: mark)
        #expect(notRenew.map(\.psEvent) == ["subscription.not_renew"])
        #expect(notRenew.first?.json["data"]?["status"]?.stringValue == "non-renewing")
        #expect(await h.ps("GET", "/subscription/\(code)").json?["data"]?["next_payment_date"] == .null)
        mark = await h.mark()

        let enabled = await h.ps("POST", "/subscription/enable", body: ["code": .string(code), "token": .string(token)])
        #expect(enabled.json == ["status": true, "message": "Subscription enabled successfully"])
        #expect(await h.delivered(after: mark).isEmpty)
        let after = try #require(await h.ps("GET", "/subscription/\(code)").json?["data"])
        #expect(after["status"]?.stringValue == "active")
        #expect(after["next_payment_date"]?.stringValue == nextPayment)

        // Enabling one that was disabled for good works the same way and is just as silent.
        _ = await h.control("POST", "/paystack/subscriptions/\(code)/expire", body: ["status": "cancelled"])
        mark = await h.mark()
        h.clock.advance(days: 40)
        _ = await h.ps("POST", "/subscription/enable", body: ["code": .string(code), "token": .string(token)])
        #expect(await h.delivered(after: mark).isEmpty)
        let revived = try #require(await h.ps("GET", "/subscription/\(code)").json?["data"])
        #expect(revived["status"]?.stringValue == "active")
        #expect(revived["next_payment_date"]?.stringValue == "2025-08-25T15:06:40.000Z") // a period after the enable
    }

    @Test func renewalChargesTheSubscriptionAuthorizationWithPlanAndNoCheckoutMetadata() async throws {
        let h = Harness()
        let (reference, code) = try #require(await h.psSubscribe())
        let authorization = try #require(h.transport.sent.first?.json["data"]?["authorization"])
        let mark = await h.mark()
        _ = await h.control("POST", "/paystack/subscriptions/\(code)/renew")
        let renewal = try #require(await h.delivered(after: mark).first { $0.psEvent == "charge.success" }?.json["data"])
        #expect(renewal["reference"]?.stringValue != reference)
        #expect(renewal["plan"]?["plan_code"]?.stringValue == "PLN_sbxpremmonth01")
        #expect(renewal["metadata"] == ["invoice_action": "create"])
        #expect(renewal["authorization"] == authorization)
        #expect(renewal["domain"]?.stringValue == "test")
    }
}
